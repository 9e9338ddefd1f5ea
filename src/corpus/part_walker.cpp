#include "src/corpus/part_walker.hpp"

namespace gridvec {

bool part_walker::done(size_t i) const { return parts_[i].finished(iterations_) || parts_[i].epoch >= until_[i]; }

status part_walker::add(const std::vector<part_cursor>& parts) {
  const bool was_idle = !has_work();
  if (leases_) // an ended lease of a part given again goes: its cursor is the new one's past
    for (const auto& c : parts)
      for (size_t i = 0; i < parts_.size(); ++i)
        if (parts_[i].part == c.part && done(i) && i < current_) {
          parts_.erase(parts_.begin() + static_cast<std::ptrdiff_t>(i));
          until_.erase(until_.begin() + static_cast<std::ptrdiff_t>(i));
          --current_;
          break;
        }
  for (const auto& c : parts) {
    parts_.push_back(c);
    until_.push_back(leases_ ? c.epoch + 1 : iterations_);
  }
  if (was_idle) {
    choose_current();
    if (has_work())
      return open_current();
  }
  return {};
}

status part_walker::reset(const std::vector<part_cursor>& parts) {
  parts_.assign(parts.begin(), parts.end());
  until_.clear();
  for (const auto& c : parts)
    until_.push_back(leases_ ? c.epoch + 1 : iterations_);
  current_ = 0;
  reader_.reset();
  choose_current();
  return has_work() ? open_current() : status{};
}

bool part_walker::has_work() const { return current_ < parts_.size(); }

void part_walker::choose_current() {
  if (leases_) { // in the order given: each lease is one epoch
    while (current_ < parts_.size() && done(current_))
      ++current_;
    return;
  }
  size_t best = parts_.size();
  for (size_t i = 0; i < parts_.size(); ++i)
    if (!done(i) && (best == parts_.size() || parts_[i].epoch < parts_[best].epoch))
      best = i;
  current_ = best;
}

status part_walker::open_current() {
  reader_.reset();
  part_cursor& c = parts_[current_];
  auto r = id_reader::open(c.ids_path);
  if (!r)
    return failure{r.error()};
  if (auto s = r->seek(c.offset); !s)
    return failure{c.ids_path + ": " + s.error()};
  reader_.emplace(std::move(*r));
  sentence_start_ = c;
  return {};
}

part_walker::step part_walker::next(std::vector<uint32_t>& out, status& read) {
  if (!has_work())
    return step::no_work;
  part_cursor& c = parts_[current_];
  sentence_start_ = c;
  if (reader_->next_sentence(out)) {
    for (uint32_t id : out)
      if (id >= vocabulary_size_) {
        read = failure{"damaged word-id file " + c.ids_path + ": word id " + std::to_string(id) +
                       " is not below the vocabulary's " + std::to_string(vocabulary_size_) + " words"};
        out.clear();
        return step::no_work;
      }
    c.offset = reader_->tell();
    c.processed += out.size();
    return step::sentence;
  }
  // End of an epoch over this part.
  ++c.epoch;
  c.offset = id_reader::first_offset;
  const size_t ended = current_;
  choose_current();
  if (current_ == ended) {
    reader_->rewind();
    sentence_start_ = c;
    return step::epoch_end;
  }
  reader_.reset();
  if (has_work())
    if (auto s = open_current(); !s)
      read = s;
  return step::part_end;
}

} // namespace gridvec
