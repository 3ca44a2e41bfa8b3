#pragma once
/// @file Everything of warpdex's host API in one include.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/core/memory_resource.hpp>
