#include "storage/clock.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace weibo {

int64_t Clock::NowMs() const {
  if (fixed_ms_ != 0) return fixed_ms_;
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

namespace {

// The milliseconds of a fraction of a second, ".5" or ".123456789" (1 to 9 digits, the
// clock keeps milliseconds, so the digits past them are dropped); -1 when text does not
// start with one. *length: the characters it took.
int FractionMs(const std::string& text, size_t* length) {
  *length = 0;
  if (text.empty() || text[0] != '.') return -1;
  size_t n = 1;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  if (n == 1 || n > 10) return -1;
  std::string digits = text.substr(1, 3);
  digits.resize(3, '0');
  *length = n;
  return std::stoi(digits);
}

}  // namespace

std::optional<int64_t> ParseTime(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const size_t whole = text.find_first_not_of("0123456789");
  if (whole != 0 && (whole == std::string::npos || text[whole] == '.')) {
    // Epoch seconds, at most 12 digits, maybe with a fraction: "1700000000.25".
    size_t length = 0;
    const int ms = whole == std::string::npos ? 0 : FractionMs(text.substr(whole), &length);
    const size_t digits = whole == std::string::npos ? text.size() : whole;
    if (digits > 12 || ms < 0 || (whole != std::string::npos && whole + length != text.size()))
      return std::nullopt;
    return std::stoll(text.substr(0, digits)) * 1000 + ms;
  }
  int y, mo, d, h = 0, mi = 0, s = 0, consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &consumed) != 3 || consumed != 10)
    return std::nullopt;
  std::string rest = text.substr(10);
  int offset_min = 0, fraction_ms = 0;
  if (!rest.empty()) {
    if (rest[0] != 'T' && rest[0] != ' ') return std::nullopt;
    if (std::sscanf(rest.c_str() + 1, "%2d:%2d:%2d%n", &h, &mi, &s, &consumed) != 3 ||
        consumed != 8)
      return std::nullopt;
    size_t length = 0;
    const int ms = FractionMs(rest.substr(9), &length);
    if (ms > 0) fraction_ms = ms;
    std::string zone = rest.substr(9 + length);
    if (zone == "Z" || zone.empty()) {
    } else if ((zone[0] == '+' || zone[0] == '-') && zone.size() == 6 && zone[3] == ':') {
      int zh, zm;
      if (std::sscanf(zone.c_str() + 1, "%2d:%2d", &zh, &zm) != 2) return std::nullopt;
      offset_min = (zone[0] == '+' ? 1 : -1) * (zh * 60 + zm);
    } else {
      return std::nullopt;
    }
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  std::time_t local = timegm(&tm);
  std::tm check{};
  gmtime_r(&local, &check);
  if (check.tm_mday != d || check.tm_mon != mo - 1) return std::nullopt;  // 2026-02-31
  int64_t secs = static_cast<int64_t>(local) - offset_min * 60;
  return secs * 1000 + fraction_ms;
}

namespace {

// The civil date of a day counted from 1970-01-01, in the proleptic Gregorian calendar
// (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms", civil_from_days), for
// days >= 0: eras of 400 years, March first, so that February's day 29 comes last.
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day) {
  const int64_t z = days + 719468;  // days from 0000-03-01
  const int64_t era = z / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);                    // [0, 146096]
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const unsigned mp = (5 * doy + 2) / 153;                                     // from March
  *day = doy - (153 * mp + 2) / 5 + 1;
  *month = mp < 10 ? mp + 3 : mp - 9;
  *year = static_cast<int64_t>(yoe) + era * 400 + (*month <= 2 ? 1 : 0);
}

void PutDigits(char* at, int64_t value, int width) {
  for (int i = width - 1; i >= 0; --i, value /= 10) at[i] = static_cast<char>('0' + value % 10);
}

}  // namespace

std::string FormatTime(int64_t ms) {
  const int64_t secs = ms / 1000;
  // Years 1970 to 9999 by arithmetic: every item of a page has a time, and gmtime_r takes
  // the time zone's lock and strftime walks its format (4% of a home read). Other values
  // (a clock before 1970 or past 9999) the C library formats.
  constexpr int64_t kYear10000 = 253402300800;  // 10000-01-01T00:00:00Z
  if (secs < 0 || secs >= kYear10000) {
    std::time_t t = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
  }
  int64_t year;
  unsigned month, day;
  CivilFromDays(secs / 86400, &year, &month, &day);
  const int64_t of_day = secs % 86400;
  std::string out = "0000-00-00T00:00:00Z";
  PutDigits(&out[0], year, 4);
  PutDigits(&out[5], month, 2);
  PutDigits(&out[8], day, 2);
  PutDigits(&out[11], of_day / 3600, 2);
  PutDigits(&out[14], of_day / 60 % 60, 2);
  PutDigits(&out[17], of_day % 60, 2);
  return out;
}

std::string ClockRange() {
  return "from " + FormatTime(kEarliestTimeMs) + " to " + FormatTime(kClockLatestMs);
}

std::optional<int64_t> ParseClock(const std::string& text) {
  auto ms = ParseTime(text);
  if (!ms || !ClockInRange(*ms)) return std::nullopt;
  return ms;
}

}  // namespace weibo
