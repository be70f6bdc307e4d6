#include "stepdoctor/importers/samples/date_order_judge.h"

#include <fmt/format.h>

namespace stepdoctor::csv {

void DateOrderJudge::Decide(DateOrder o, std::string why) {
  decided_ = true;
  order_ = o;
  reason_ = std::move(why);
}

void DateOrderJudge::See(int first, int second) {
  if (decided_) return;
  if (first > 12 && second <= 12) return Decide(DateOrder::kDayFirst, fmt::format("a first field of {} can only be a day", first));
  if (second > 12 && first <= 12)
    return Decide(DateOrder::kMonthFirst, fmt::format("a second field of {} can only be a day", second));
  if (first_ >= 0 && (first != first_ || second != second_)) {
    if (first == first_ && second == second_ + 1)
      return Decide(DateOrder::kMonthFirst, fmt::format("the dates step from {:02}-{:02} to {:02}-{:02}: the second "
                                                        "field counts the days",
                                                        first_, second_, first, second));
    if (second == second_ && first == first_ + 1)
      return Decide(DateOrder::kDayFirst, fmt::format("the dates step from {:02}-{:02} to {:02}-{:02}: the first "
                                                      "field counts the days",
                                                      first_, second_, first, second));
  }
  first_ = first;
  second_ = second;
}

}  // namespace stepdoctor::csv
