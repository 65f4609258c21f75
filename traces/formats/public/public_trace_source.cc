#include "traces/formats/public/public_trace_source.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/base/input_error.h"
#include "traces/formats/public/csv_public_source.h"
#include "traces/formats/trace_writer.h"
#include "traces/io/csv_reader.h"

namespace gpumux {

PublicTraceSource::PublicTraceSource(const TraceDefaults& defaults, std::uint64_t seed,
                                     std::size_t window, std::string submit_field)
    : TraceSource(defaults, seed), window_(window), submit_field_(std::move(submit_field)) {}

std::uint64_t PublicTraceSource::skipped_rows() const {
  std::uint64_t n = stats_.skipped_lines;
  for (const auto& [reason, count] : skipped_) n += count;
  return n;
}

std::uint32_t PublicTraceSource::add_file(const std::string& path) {
  files_.push_back(path);
  return static_cast<std::uint32_t>(files_.size() - 1);
}

void PublicTraceSource::skip(const std::string& reason) {
  ++skipped_[reason];
  ++records_;
}

JobSpec& PublicTraceSource::new_job() {
  if (new_slot_open_) {
    pending_[new_slot_].job = JobSpec{};  // the last row was skipped after new_job()
  } else if (free_slots_.empty()) {
    new_slot_ = pending_.grow();  // default-constructed
  } else {
    new_slot_ = free_slots_.back();
    free_slots_.pop_back();
    pending_[new_slot_].job = JobSpec{};
  }
  new_slot_open_ = true;
  return pending_[new_slot_].job;
}

void PublicTraceSource::add(JobSpec&& job, const PresentFields& present, std::uint32_t file,
                            std::uint64_t line) {
  new_job() = std::move(job);
  add_new(present, file, line);
}

void PublicTraceSource::add_new(const PresentFields& present, std::uint32_t file,
                                std::uint64_t line) {
  ++records_;
  const std::uint32_t slot = new_slot_;
  Pending& record = pending_[slot];
  const JobSpec& job = record.job;
  auto where = [&] { return files_[file] + ":" + std::to_string(line); };
  if (origin_set_ && job.submit < origin_) {
    throw InputError(where(), submit_field_,
                     "submit time is earlier than the trace's time origin (midnight of the first "
                     "row's day): the file is not sorted by submit time");
  }
  if (emitted_any_ && job.submit < last_emitted_) {
    throw InputError(where(), submit_field_,
                     "submit time is earlier than a job already returned: this format is read "
                     "with a reorder window of " +
                         std::to_string(window_) +
                         " jobs and the file is less sorted than that; sort it by submit time");
  }
  if (heap_.size() >= kMaxBufferedJobs) {
    throw InputError(where(), "",
                     "more than " + std::to_string(kMaxBufferedJobs) +
                         " jobs would be held in memory to sort this trace by submit time; "
                         "split the trace or sort it first");
  }
  new_slot_open_ = false;
  record.present = present;
  record.file = file;
  record.line = line;
  record.id_hash = id_hash(job.id);
  const Key key{pending_[slot].job.submit, sequence_++, slot};
  if (window_ == kWholeFile && in_read_order_) {
    // Nothing is returned before the input ends: the keys wait in read order for one sort.
    heap_.push_back(key);
    return;
  }
  if (sorted_ || in_read_order_) {
    // An add after the input ended (none does today) turns the sorted rest back into a heap.
    std::make_heap(heap_.begin(), heap_.end(), Later{});
    sorted_ = false;
    in_read_order_ = false;
  }
  heap_.push_back(key);
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

void PublicTraceSource::sort_read_order(std::vector<Key>& keys) {
  // A stable least-significant-digit radix sort on submit, ascending, then reversed: equal
  // submit times end in descending read order, which is Later's order (a total order, so the
  // one std::sort gives). Submit times are biased by 2^63 to order as unsigned numbers.
  constexpr int kDigitBits = 11;
  constexpr std::size_t kDigits = std::size_t{1} << kDigitBits;
  constexpr int kPasses = (64 + kDigitBits - 1) / kDigitBits;
  const std::size_t n = keys.size();
  if (n < 512) {  // the counting passes cost more than they save
    std::sort(keys.begin(), keys.end(), Later{});
    return;
  }
  auto bits = [](const Key& k) {
    return static_cast<std::uint64_t>(k.submit.us()) ^ (std::uint64_t{1} << 63);
  };
  auto digit = [](std::uint64_t b, int pass) {
    return static_cast<std::size_t>(b >> (pass * kDigitBits)) & (kDigits - 1);
  };
  std::vector<std::array<std::uint32_t, kDigits>> counts(kPasses);
  for (auto& c : counts) c.fill(0);
  for (const Key& k : keys) {
    const std::uint64_t b = bits(k);
    for (int p = 0; p < kPasses; ++p) ++counts[p][digit(b, p)];
  }
  std::vector<Key> scratch(n);
  for (int p = 0; p < kPasses; ++p) {
    auto& count = counts[p];
    if (count[digit(bits(keys[0]), p)] == n) continue;  // every key has this digit
    std::uint32_t start = 0;
    for (auto& c : count) {
      const std::uint32_t here = c;
      c = start;
      start += here;
    }
    for (const Key& k : keys) scratch[count[digit(bits(k), p)]++] = k;
    keys.swap(scratch);
  }
  std::reverse(keys.begin(), keys.end());
}

bool PublicTraceSource::next(JobSpec& job) {
  while (!input_done_ && (window_ == kWholeFile || heap_.size() <= window_)) {
    if (!read_more()) {
      input_done_ = true;
      at_end();
    }
  }
  if (heap_.empty()) return false;
  if (input_done_ && !sorted_) {
    // Nothing more is added: one sort puts the rest in pop order (Later is a total order, the
    // same sequence a heap pops), the earliest last, cheaper than a heap pop per job.
    if (in_read_order_) {
      sort_read_order(heap_);
    } else {
      std::sort(heap_.begin(), heap_.end(), Later{});
    }
    sorted_ = true;
    in_read_order_ = false;
  }
  if (!sorted_) std::pop_heap(heap_.begin(), heap_.end(), Later{});
  if (sorted_ && heap_.size() > kPrefetchAhead) {
    // The records lie in file order and leave in submit order, a cache miss each: ask for the
    // one returned kPrefetchAhead calls from now (it was most of this function's time).
    const char* ahead =
        reinterpret_cast<const char*>(&pending_[heap_[heap_.size() - 1 - kPrefetchAhead].slot]);
    for (std::size_t byte = 0; byte < sizeof(Pending); byte += 64) {
      __builtin_prefetch(ahead + byte);
    }
    // Half as far ahead, whose record has arrived: its id's place in the duplicate check.
    prefetch_id(pending_[heap_[heap_.size() - 1 - kPrefetchAhead / 2].slot].id_hash);
  }
  const std::uint32_t slot = heap_.back().slot;
  heap_.pop_back();
  Pending& top = pending_[slot];
  job = std::move(top.job);
  const PresentFields present = top.present;
  const RowPlace where{files_[top.file], top.line};  // "file:line" built only for an error
  free_slots_.push_back(slot);
  emitted_any_ = true;
  last_emitted_ = job.submit;
  job.submit -= origin_;
  complete(job, present, where, top.id_hash);
  return true;
}

std::optional<GpuRequest> gpu_request_within_limit(double per_instance, std::int64_t instances) {
  // A request such as 1.0000000000000002 GPUs must not round up to 2 GPUs.
  const double whole = std::max(1.0, std::ceil(per_instance - 1e-9));
  const double total = whole * static_cast<double>(instances);
  if (total > 1e6) return std::nullopt;
  GpuRequest r;
  r.gpus = static_cast<int>(total);
  r.sm_share = std::min(1.0, per_instance / whole);
  r.fractional = r.sm_share < 1.0 - 1e-9;
  if (!r.fractional) r.sm_share = 1.0;
  return r;
}

GpuRequest gpu_request(double per_instance, std::int64_t instances, const std::string& where,
                       std::string_view field) {
  if (const std::optional<GpuRequest> r = gpu_request_within_limit(per_instance, instances)) {
    return *r;
  }
  const double whole = std::max(1.0, std::ceil(per_instance - 1e-9));
  const double total = whole * static_cast<double>(instances);
  throw InputError(where, std::string(field),
                   "a gang of " + std::to_string(static_cast<std::int64_t>(total)) +
                       " GPUs is more than 10^6");
}

void set_gpus(JobSpec& job, PresentFields& present, const GpuRequest& request) {
  job.gpus = request.gpus;
  mark(present, JobField::kGpus);
  if (request.fractional) {
    job.sm_share = request.sm_share;
    mark(present, JobField::kSmShare);
    // The same fraction is the job's compute share (Kubernetes GPU-share requests).
    job.gpu_milli =
        static_cast<int>(std::clamp<long long>(std::llround(request.sm_share * 1000.0), 1, 1000));
  } else {
    job.gpu_milli = 1000;
  }
  mark(present, JobField::kGpuMilli);
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

constexpr const char* kMonthNames[12] = {"January",   "February", "March",    "April",
                                         "May",       "June",     "July",     "August",
                                         "September", "October",  "November", "December"};

int days_in_month(int y, int m) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

std::int64_t parse_datetime_cell(std::string_view text, const std::string& where,
                                 std::string_view field) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  const bool shape = text.size() == 19 && text[4] == '-' && text[7] == '-' && text[10] == ' ' &&
                     text[13] == ':' && text[16] == ':';
  if (!shape || !digits(text, 0, 4, y) || !digits(text, 5, 2, mo) || !digits(text, 8, 2, d) ||
      !digits(text, 11, 2, h) || !digits(text, 14, 2, mi) || !digits(text, 17, 2, s) || y < 1970 ||
      mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) {
    throw InputError(where, std::string(field),
                     "expected a time 'YYYY-MM-DD HH:MM:SS', got '" + std::string(text) + "'");
  }
  // An impossible calendar day (2017-02-30) is not normalised into the next month: it could
  // become the trace's time origin and shift every other job.
  if (d > days_in_month(y, mo)) {
    throw InputError(where, std::string(field),
                     "no such date: '" + std::string(text) + "' (" + kMonthNames[mo - 1] + " " +
                         std::to_string(y) + " has " + std::to_string(days_in_month(y, mo)) +
                         " days)");
  }
  return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
         h * 3600 + mi * 60 + s;
}

std::int64_t start_of_day(std::int64_t seconds_since_epoch) {
  return seconds_since_epoch - seconds_since_epoch % 86400;
}

double parse_seconds_cell(std::string_view text, const std::string& where, std::string_view field) {
  return parse_number_cell(text, where, field, 0.0, 1e12);
}

CsvColumns::CsvColumns(const std::vector<std::string>& header,
                       const std::vector<std::string>& required, const std::string& where,
                       const std::string& note_when_missing)
    : width_(header.size()) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (!index_.emplace(header[i], static_cast<int>(i)).second) {
      throw InputError(where, header[i], "column appears twice in the header");
    }
  }
  for (const auto& name : required) {
    if (index_.find(name) == index_.end()) {
      std::string all;
      for (const auto& n : required) all += (all.empty() ? "" : ", ") + n;
      throw InputError(
          where, name,
          "required column is missing from the header (needed: " + all + ")" + note_when_missing);
    }
  }
}

int CsvColumns::find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

void check_row_width(const std::vector<std::string>& row, std::size_t width,
                     const std::string& where) {
  check_row_width(row.size(), width, where);
}

void check_row_width(std::size_t cells, std::size_t width, const std::string& where) {
  if (cells != width) {
    throw InputError(where, "",
                     "expected " + std::to_string(width) + " fields like the header, got " +
                         std::to_string(cells));
  }
}

namespace {

std::vector<std::string> read_header(CsvReader& rows) {
  std::vector<std::string> header;
  if (!rows.next(header)) throw InputError(rows.path() + ":1", "", "empty trace: no header line");
  return header;
}

}  // namespace

CsvPublicSource::CsvPublicSource(const std::string& path, const TraceDefaults& defaults,
                                 std::uint64_t seed, std::size_t window,
                                 const std::string& submit_field,
                                 const std::vector<std::string>& required, const std::string& note)
    : PublicTraceSource(defaults, seed, window, submit_field),
      rows_(path),
      header_(read_header(rows_)),
      header_where_(rows_.where()),
      columns_(header_, required, header_where_, note),
      file_(add_file(path)) {}

const std::string& CsvPublicSource::where() {
  if (where_line_ != rows_.line()) {
    where_.assign(rows_.path());
    where_ += ':';
    append_integer(where_, static_cast<std::int64_t>(rows_.line()));
    where_line_ = rows_.line();
  }
  return where_;
}

bool CsvPublicSource::read_more() {
  const bool more = rows_.next(cells_);
  stats_.skipped_lines = rows_.skipped_lines();
  if (!more) return false;
  if (cells_.size() != columns_.width()) check_row_width(cells_.size(), columns_.width(), where());
  row(cells_);
  return true;
}

}  // namespace gpumux
