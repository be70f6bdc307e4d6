// Which field of a log's year-last dates ("03-11-2026 15:13:16") is the day. Both orders are
// written in the wild (a day-first European script, a month-first US one, with '-' as well as
// '/'), and a wrong guess moves the log by months and opens a false month-long hole at the
// first midnight. The log's own dates settle it: a field above 12 can only be a day, and a date
// that steps by one in one field while the other stays is a new day in that field.
#pragma once

#include <string>

#include "stepdoctor/importers/samples/csv_fields.h"

namespace stepdoctor::csv {

class DateOrderJudge {
 public:
  // One row's date, by its two leading fields.
  void See(int first, int second);
  // Ends the judging where the dates never told (as written, then).
  void Settle() { decided_ = true; }
  bool decided() const { return decided_; }
  DateOrder order() const { return order_; }
  // Whether the dates themselves told, and how ("a first field of 13 can only be a day").
  bool by_data() const { return !reason_.empty(); }
  const std::string& reason() const { return reason_; }

 private:
  void Decide(DateOrder o, std::string why);
  bool decided_ = false;
  DateOrder order_ = DateOrder::kAsWritten;
  int first_ = -1, second_ = -1;
  std::string reason_;
};

}  // namespace stepdoctor::csv
