#!/usr/bin/env python3
"""`warpdex segment` on real photographs: scikit-image's bundled sample images (in its wheel; nothing is
downloaded), shrunk to at most 256 x 256, written as PNG (gray, and one RGB that warpdex turns to gray) and as TIFF by tifffile (another
writer than warpdex's libtiff), plus scikit-image's own multi-page TIFF (a stack: a volume) and its float
RGB TIFF (refused with a message).

Each image is segmented with 2 and 3 labels on the host backend; each run must exit 0, write a label image
of the input's size in which every label is used, and (the real check) the mean input intensity of the
pixels of label k must increase with k.

Needs the packages of tools/photo-requirements.txt: `tools/python-env.sh --photos` installs them into .venv.
usage: .venv/bin/python tools/segment_photos.py WARPDEX [--keep DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import skimage
import skimage.color
import skimage.data
import tifffile
from PIL import Image

# Bundled in the wheel (skimage.data's functions that need pooch download other images: not used here).
GRAY = ["camera", "coins", "moon", "page"]
COLOR = ["astronaut"]  # RGB: written as is, warpdex reads it as gray
DATA_DIR = os.path.dirname(skimage.data.__file__)
SIDE = 256  # images are shrunk to at most SIDE x SIDE: seconds, not minutes, on the host backend of 2 cores

# OpenMP threads that sleep rather than spin while they wait: on a shared CI machine with more runnable
# threads than cores, spinning made the same run take 1 to 10 s.
ENVIRONMENT = dict(os.environ, OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "passive"))


def shrink(image):
    """The image (uint8, gray or RGB) resized (Lanczos) to at most SIDE on its longer side."""
    height, width = image.shape[:2]
    scale = min(1.0, SIDE / max(height, width))
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(Image.fromarray(image).resize(size, Image.LANCZOS)) if scale < 1 else image


def read_labels(path):
    if path.endswith(".tif"):
        return tifffile.imread(path)
    return np.asarray(Image.open(path))


def segment(warpdex, image_path, gray, labels, out_dir, extension, failures):
    """Runs `warpdex segment` and checks the labels against `gray`, the image as intensities (any shape)."""
    name = os.path.basename(image_path)
    out = os.path.join(out_dir, f"{name}.labels{labels}{extension}")
    started = time.monotonic()
    run = subprocess.run([warpdex, "--backend", "host", "segment", image_path, "--labels", str(labels), "-o", out],
                         capture_output=True, text=True, env=ENVIRONMENT)
    seconds = time.monotonic() - started
    problem = None
    if run.returncode != 0:
        problem = f"exit {run.returncode}: {run.stderr.strip() or run.stdout.strip()}"
    else:
        written = read_labels(out)
        if written.shape != gray.shape:
            problem = f"labels of shape {written.shape}, the image {gray.shape}"
        else:
            step = 255 // (labels - 1)  # the labels are spread over 0 .. 255
            label = written.astype(np.int64) // step
            means = []
            for k in range(labels):
                mask = label == k
                if not mask.any():
                    problem = f"label {k} is not used"
                    break
                means.append(float(gray[mask].mean()))
            if problem is None and not all(a < b for a, b in zip(means, means[1:])):
                problem = f"mean intensities per label not increasing: {means}"
            if problem is None:
                print(f"  {name:>20} {labels} labels: ok ({seconds:.2f} s), mean per label "
                      + ", ".join(f"{m:.1f}" for m in means))
    if problem is not None:
        print(f"  {name:>20} {labels} labels: FAILED: {problem}")
        failures.append(f"{name} with {labels} labels: {problem}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("warpdex", help="the warpdex CLI binary")
    parser.add_argument("--keep", help="write the images and labels here (default: a temporary folder)")
    args = parser.parse_args()
    out_dir = args.keep or tempfile.mkdtemp(prefix="warpdex_photos_")
    os.makedirs(out_dir, exist_ok=True)
    print(f"scikit-image {skimage.__version__}: segmenting its sample images with {args.warpdex}")
    failures = []
    cases = []  # (path, intensities as warpdex reads them, label file extension)
    for name in GRAY:
        image = shrink(getattr(skimage.data, name)())
        assert image.dtype == np.uint8 and image.ndim == 2, (name, image.shape)
        png = os.path.join(out_dir, f"{name}.png")
        Image.fromarray(image).save(png)
        cases.append((png, image, ".png"))
    # One gray image as a 16-bit TIFF written by tifffile (deflate), labels as TIFF.
    camera16 = shrink(skimage.data.camera()).astype(np.uint16) * 257
    tif = os.path.join(out_dir, "camera16.tif")
    tifffile.imwrite(tif, camera16, compression="zlib")
    cases.append((tif, camera16, ".tif"))
    for name in COLOR:
        image = shrink(getattr(skimage.data, name)())
        png = os.path.join(out_dir, f"{name}.png")
        Image.fromarray(image).save(png)
        cases.append((png, skimage.color.rgb2gray(image), ".png"))
    # scikit-image's own 2-page TIFF: a 10 x 15 x 2 volume, labels written as a stack.
    stack = tifffile.imread(os.path.join(DATA_DIR, "multipage.tif"))
    cases.append((os.path.join(DATA_DIR, "multipage.tif"), stack, ".tif"))

    for path, gray, extension in cases:
        for labels in (2, 3):
            segment(args.warpdex, path, gray, labels, out_dir, extension, failures)

    # Its float RGB TIFF is refused, saying why.
    refused = subprocess.run([args.warpdex, "--backend", "host", "segment", os.path.join(DATA_DIR, "multipage_rgb.tif")],
                             capture_output=True, text=True)
    if refused.returncode == 0 or "floating-point samples" not in refused.stderr:
        failures.append(f"multipage_rgb.tif (float samples) not refused as expected: exit {refused.returncode}, "
                        f"{refused.stderr.strip()}")
    else:
        print(f"  {'multipage_rgb.tif':>20} refused: {refused.stderr.strip()}")

    if failures:
        print(f"{len(failures)} failure(s):\n  " + "\n  ".join(failures))
        return 1
    print(f"all {len(cases) * 2} segmentations passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
