#pragma once
// The allowed-outcomes checks of a concurrent batch: for one key, whether the statuses its operations
// reported and the state it was left in are those of SOME sequential order of them (slab_table.hpp for
// the unique-key tables; slab_multimap.hpp for the multiset check at the end).
//
// A sequential run of a unique-key table alternates absent and present phases: an `inserted` starts a present phase, an
// `erased` ends one, and `assigned` changes the value inside one. Observers can be placed anywhere a
// matching state exists, so the run exists exactly when the phase counts match the initial and final
// states, observers of absence or presence have a phase of that kind, every value seen was written
// (or initial), and the final value can be the last one written.

#include <warpdex/hash/slab_layout.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpdex::testing {

struct key_operation {
  hash::operation op;
  std::uint32_t value_in = 0;  ///< insertions' value (unique per element in the tests)
  hash::operation_status status;
  std::optional<std::uint32_t> value_out;  ///< the value a found find reported
};

struct key_history {
  std::optional<std::uint32_t> initial;  ///< value before the batch (absent: nullopt)
  std::optional<std::uint32_t> final;    ///< value after the batch
  std::vector<key_operation> operations;
  bool has_values = true;  ///< false for sets: values are not compared
};

/// An empty string when the history is allowed, else why not.
inline std::string why_not_linearizable(const key_history& history)
{
  using hash::operation;
  using hash::operation_status;
  std::uint64_t inserted = 0, erased = 0, assigned = 0, absent_observers = 0, present_observers = 0;
  std::vector<std::uint32_t> inserted_values, assigned_values, seen_values;
  for (const key_operation& element : history.operations) {
    const operation_status s = element.status;
    switch (element.op) {
      case operation::find:
        if (s == operation_status::found) {
          ++present_observers;
          if (element.value_out) { seen_values.push_back(*element.value_out); }
        } else if (s == operation_status::not_found) {
          ++absent_observers;
        } else {
          return "a find reported status " + std::to_string(static_cast<int>(s));
        }
        break;
      case operation::insert:
        if (s == operation_status::inserted) {
          ++inserted;
          inserted_values.push_back(element.value_in);
        } else if (s == operation_status::already_present) {
          ++present_observers;
        } else {
          return "an insert reported status " + std::to_string(static_cast<int>(s));
        }
        break;
      case operation::insert_or_assign:
        if (s == operation_status::inserted) {
          ++inserted;
          inserted_values.push_back(element.value_in);
        } else if (s == operation_status::assigned) {
          ++assigned;
          assigned_values.push_back(element.value_in);
        } else {
          return "an insert_or_assign reported status " + std::to_string(static_cast<int>(s));
        }
        break;
      case operation::erase:
        if (s == operation_status::erased) {
          ++erased;
        } else if (s == operation_status::not_found) {
          ++absent_observers;
        } else {
          return "an erase reported status " + std::to_string(static_cast<int>(s));
        }
        break;
    }
  }
  const bool initially_present = history.initial.has_value();
  const bool finally_present = history.final.has_value();
  const std::uint64_t starts = inserted + (initially_present ? 1 : 0);
  const std::uint64_t ends = erased + (finally_present ? 1 : 0);
  if (starts != ends) {
    return std::to_string(inserted) + " insertions and " + std::to_string(erased) +
           " erasures do not lead from the initial to the final state";
  }
  const std::uint64_t present_phases = starts;
  if (absent_observers > 0 && initially_present && erased == 0) { return "absence observed but never possible"; }
  if ((present_observers > 0 || assigned > 0) && present_phases == 0) { return "presence observed but never possible"; }
  if (!history.has_values) { return ""; }
  const auto contains = [](const std::vector<std::uint32_t>& values, std::uint32_t value) {
    return std::find(values.begin(), values.end(), value) != values.end();
  };
  for (const std::uint32_t value : seen_values) {
    const bool written = (initially_present && value == *history.initial) || contains(inserted_values, value) ||
                         contains(assigned_values, value);
    if (!written) { return "a find saw value " + std::to_string(value) + ", which nothing wrote"; }
  }
  if (finally_present) {
    const std::uint32_t last = *history.final;
    if (initially_present && last == *history.initial) {
      if (inserted != 0 || assigned != 0) { return "the initial value survived a later write"; }
    } else if (contains(inserted_values, last)) {
      if (assigned != 0 && present_phases < 2) { return "an assignment must follow the only insertion"; }
    } else if (!contains(assigned_values, last)) {
      return "the final value " + std::to_string(last) + " was not written by the batch";
    }
  }
  return "";
}

/// One key of a multimap batch (slab_multimap.hpp): the values it held before and after (any order,
/// repeats allowed) and the find, insert and erase elements that touched it.
struct multiset_history {
  std::vector<std::uint32_t> initial;
  std::vector<std::uint32_t> final;
  std::vector<key_operation> operations;
};

/// An empty string when some sequential order of the operations, on a multiset of values starting at
/// `initial`, gives exactly the reported statuses, found values and `final`; else why not.
///
/// Why these conditions are exact: erasures are interchangeable, so an order only decides when each
/// instance appears (initial ones at the start, inserted ones at their insert) and which instances
/// the `erased` elements remove, R = initial + inserted - final (a multiset of erased-count elements).
/// A found find of value v needs an instance of v at some instant: put it first for an initial one,
/// right after its insert for an inserted one. A not_found find or erase needs an instant with no
/// instance: erase every initial instance first, run the absent observers, then the inserts, and
/// remove the rest of R last. That works exactly when R can include every initial instance, i.e.
/// final(v) <= inserted(v) for each value v.
inline std::string why_not_linearizable_multiset(const multiset_history& history)
{
  using hash::operation;
  using hash::operation_status;
  const auto status_text = [](const char* op, operation_status s) {
    return std::string("a ") + op + " reported status " + std::to_string(static_cast<int>(s));
  };
  std::map<std::uint32_t, std::int64_t> initial, inserted, final;
  for (const std::uint32_t value : history.initial) { ++initial[value]; }
  for (const std::uint32_t value : history.final) { ++final[value]; }
  std::uint64_t erased = 0, absent_observers = 0;
  std::vector<std::uint32_t> seen_values;
  for (const key_operation& element : history.operations) {
    const operation_status s = element.status;
    switch (element.op) {
      case operation::find:
        if (s == operation_status::found) {
          if (element.value_out) { seen_values.push_back(*element.value_out); }
        } else if (s == operation_status::not_found) {
          ++absent_observers;
        } else {
          return status_text("find", s);
        }
        break;
      case operation::insert:
        if (s == operation_status::inserted) {
          ++inserted[element.value_in];
        } else if (s != operation_status::out_of_memory) {
          return status_text("multimap insert", s);
        }
        break;
      case operation::erase:
        if (s == operation_status::erased) {
          ++erased;
        } else if (s == operation_status::not_found) {
          ++absent_observers;
        } else {
          return status_text("erase", s);
        }
        break;
      case operation::insert_or_assign:
        return "a multimap has no insert_or_assign";
    }
  }
  const auto count_in = [](const std::map<std::uint32_t, std::int64_t>& counts, std::uint32_t value) {
    const auto it = counts.find(value);
    return it == counts.end() ? std::int64_t{0} : it->second;
  };
  std::uint64_t inserted_total = 0;
  for (const auto& [value, count] : inserted) { inserted_total += static_cast<std::uint64_t>(count); }
  const std::uint64_t available = history.initial.size() + inserted_total;
  if (erased > available || history.final.size() != available - erased) {
    return std::to_string(history.initial.size()) + " instances, " + std::to_string(inserted_total) + " inserted and " +
           std::to_string(erased) + " erased cannot leave " + std::to_string(history.final.size());
  }
  for (const auto& [value, count] : final) {
    if (count > count_in(initial, value) + count_in(inserted, value)) {
      return "value " + std::to_string(value) + " is left " + std::to_string(count) +
             " times, more than were there or inserted";
    }
  }
  for (const std::uint32_t value : seen_values) {
    if (count_in(initial, value) + count_in(inserted, value) == 0) {
      return "a find saw value " + std::to_string(value) + ", which the key never held";
    }
  }
  if (absent_observers > 0) {
    for (const auto& [value, count] : final) {
      if (count > count_in(inserted, value)) {
        return "not_found was reported, but an instance of value " + std::to_string(value) +
               " held before the batch outlived it, so the key was never empty";
      }
    }
  }
  return "";
}

}  // namespace warpdex::testing
