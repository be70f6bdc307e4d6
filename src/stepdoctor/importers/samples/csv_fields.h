// Cell-level helpers for CSV logs: splitting a record into fields, numbers with units
// ("20 %", "1024 MiB"), and timestamps in the forms GPU logs use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/core/checked_time.h"

namespace stepdoctor::csv {

inline constexpr double kMiB = 1024.0 * 1024.0;

std::string_view Trim(std::string_view s);

// Splits one CSV record (which may hold newlines inside quotes) into unquoted fields.
std::vector<std::string> SplitRecord(std::string_view rec);

// "20 %", "1024 MiB", "1024MiB", "75.31 W", "1410 MHz" -> the number (and a memory unit's
// scale in *unit_scale, else 0); false for text ("[N/A]", a quoted "26.11\n0", "12 apples").
bool ParseNumber(std::string_view s, double* out, double* unit_scale);

// Bytes per unit of memory ("MiB", "mb", "GiB"); 0 for anything else. "MB" and "GB" are taken
// as MiB and GiB: GPU tools that print MB (gpustat, scripts dividing NVML's bytes by 1024**2)
// mean MiB, and nvidia-smi itself writes MiB.
double MemoryUnitBytes(std::string_view unit);

// Nanoseconds since the epoch from seconds since the epoch, nvidia-smi's
// "2024/01/15 10:23:45.123" (local time, like nvidia-smi writes it), "2024-01-15 10:23:45",
// ISO 8601 "2025-09-24T03:41:43.487Z" / "...+02:00" (UTC or the offset given; local without),
// or with the year last: "04-03-2021 13:32:39" / "04.03.2021 ..." (day first), "03/04/2021
// ..." (month first, the US order). A Date,Time column pair is joined with a space first.
// kOk, kNotATime, or kOutOfRange for a date or number past the time range (core/checked_time.h:
// before November 1823 or after February 2116).
// `order` settles the year-last forms where a log's own dates showed which field is the day
// (YearLastDate, DateOrderJudge); kAsWritten reads them as above.
enum class DateOrder : uint8_t { kAsWritten, kDayFirst, kMonthFirst };
TimeParse ParseTimestamp(std::string_view s, int64_t* ns, DateOrder order = DateOrder::kAsWritten);

// A year-last date ("03-11-2026 15:13:16", "03/11/2026"): its two leading fields; false for
// any other form.
bool YearLastDate(std::string_view s, int* first, int* second);

// "13:32:39" or "13:32:39.25" alone -> nanoseconds since midnight: a time column without a date.
bool ParseClockTime(std::string_view s, int64_t* ns);

// The date line nvidia-smi prints above its default table ("Mon Jan 15 10:23:45 2024", local).
// False for anything else, or a date outside the time range.
bool ParseTableDate(std::string_view s, int64_t* ns);

}  // namespace stepdoctor::csv
