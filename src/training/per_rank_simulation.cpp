// Per-rank compute timelines joined by synchronous collectives.
#include "sgdsim/training/per_rank_simulation.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "sgdsim/core/error.hpp"
#include "sgdsim/engine/simulator.hpp"

namespace sgdsim {

namespace {

// The ranks' timelines as one model on the engine. Its events: an iteration opens when the last
// rank starts it (every rank's factor is drawn and its backward start fixed), each message's
// collective begins when its last participant is ready and the stream is free, and ends after
// its cost; at the last message's end every rank's update is placed and the next iteration opens
// at the latest update end.
class PerRankTimelines final : public Model {
 public:
  PerRankTimelines(const BackwardProfile& profile, const MergePlan& plan, std::vector<double> base,
                   double sigma, int iterations, std::uint64_t seed, const Collective& collective,
                   double overlap_slowdown, SimulationResult& out)
      : profile_(profile),
        plan_(plan),
        base_(std::move(base)),
        sigma_(sigma),
        iterations_left_(iterations),
        rng_(seed),
        start_(base_.size(), Time::zero()),
        factor_(base_.size(), 1.0),
        backward_start_(base_.size()),
        compute_(overlap_slowdown),
        out_(out) {
    Time previous;
    for (const MessageGroup& group : plan_) {
      bytes_.push_back(group_bytes(profile_, group));
      previous = std::max(previous, group_ready(profile_, group));
      ready_offset_.push_back(previous);
      cost_.push_back(message_cost(profile_, group, collective));
    }
  }

  Time next_event() override { return next_; }

  // The rank last to end backward most often, and in how many iterations (out_'s fields).
  void report_slowest_rank() {
    const auto most = std::max_element(last_counts_.begin(), last_counts_.end());
    out_.slowest_rank = static_cast<int>(most - last_counts_.begin());
    out_.slowest_rank_iterations = *most;
  }

  void advance(Time now) override {
    if (now < next_) return;
    switch (stage_) {
      case Stage::open: open_iteration(); break;
      case Stage::begin:
        stage_ = Stage::end;
        next_ = end_;
        break;
      case Stage::end: end_message(); break;
    }
  }

 private:
  enum class Stage : std::uint8_t { open, begin, end };

  void open_iteration() {
    const std::size_t ranks = base_.size();
    for (std::size_t r = 0; r < ranks; ++r) {
      factor_[r] = base_[r] * jitter_factor(sigma_, rng_);
      backward_start_[r] = start_[r] + profile_.forward.scaled(factor_[r]);
    }
    timeline_ = IterationTimeline{};
    IterationTimeline& timeline = timeline_;
    timeline.start = next_;
    timeline.backward_start = *std::max_element(backward_start_.begin(), backward_start_.end());
    build_envelope(timeline.backward_start);
    compute_.clear();  // offsets from origin_: nothing in flight before it
    stream_free_ = Time::zero();
    message_ = 0;
    if (plan_.empty()) {
      close_iteration();
    } else {
      schedule_message();
    }
  }

  // Rank r has a message ready at backward_start_r + offset x factor_r: a line in the offset.
  // The last rank to be ready is the upper envelope of these lines, and the messages' offsets
  // only grow, so one walk along the envelope answers every message of the iteration:
  // O(ranks log ranks + messages) instead of O(ranks x messages). Intercepts are taken from the
  // latest backward start (`origin`), so they stay small and exact in a double. With few
  // messages the sort costs more than scanning every line for each; the scan takes the maximum
  // of the very same values, so both give the same picosecond.
  void build_envelope(Time origin) {
    origin_ = origin;
    intercept_.resize(base_.size());
    for (std::size_t r = 0; r < base_.size(); ++r) {
      intercept_[r] = static_cast<double>((backward_start_[r] - origin).ps());
    }
    if (scan_) return;
    if (!sorted_by_factor_ || sigma_ > 0.0) {  // slopes change only with jitter
      by_factor_.resize(base_.size());
      for (std::size_t r = 0; r < by_factor_.size(); ++r) by_factor_[r] = r;
      std::sort(by_factor_.begin(), by_factor_.end(),
                [this](std::size_t a, std::size_t b) { return factor_[a] < factor_[b]; });
      sorted_by_factor_ = true;
    }
    envelope_.clear();
    for (const std::size_t r : by_factor_) envelope_.add(factor_[r], intercept_[r]);
  }

  double latest_ready(double offset) {
    if (!scan_) return envelope_.at(offset);
    double latest = -std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < base_.size(); ++r) {
      latest = std::max(latest, intercept_[r] + factor_[r] * offset);  // as UpperEnvelope's lines
    }
    return latest;
  }

  // The current message begins when its last participant has its gradients and the stream is
  // free. The envelope's value is rounded once (the old per-rank maximum rounded each rank's
  // time first: the two differ by at most a picosecond, and not at all when factors are 1).
  void schedule_message() {
    const double latest = latest_ready(static_cast<double>(ready_offset_[message_].ps()));
    // The rank that started backward last has intercept 0 and a positive slope, so no message
    // can be ready before `origin`: a negative maximum is an envelope bug.
    SGDSIM_ASSERT(latest >= 0.0, "a message ready before the last backward began");
    // The envelope is in full-speed work from origin_; the busy spans so far map it to the wall
    // clock (a message is released before its own span and every later one begins).
    const Time ready = origin_ + compute_.wall_at(Time::rounded_ps(latest));
    ready_ = ready;
    const MessageCost& cost = cost_[message_];
    const StreamSlot slot = on_stream(stream_free_, ready, cost.duration, cost.overlap);
    begin_ = slot.begin;
    end_ = slot.end;
    compute_.busy(begin_ - origin_, end_ - origin_);
    stage_ = Stage::begin;
    next_ = begin_;
  }

  void end_message() {
    IterationTimeline& timeline = timeline_;
    stream_free_ = next_;
    const Time origin = timeline.backward_start;
    timeline.messages.push_back({plan_[message_], bytes_[message_], ready_ - origin,
                                 begin_ - origin, stream_free_ - origin});
    if (++message_ < plan_.size()) {
      schedule_message();
    } else {
      close_iteration();
    }
  }

  void close_iteration() {
    IterationTimeline& timeline = timeline_;
    timeline.communication_end = plan_.empty() ? timeline.backward_start : stream_free_;
    Time latest_end;
    Time latest_backward;
    std::size_t last_rank = 0;  // the first rank whose backward ends at latest_backward
    for (std::size_t r = 0; r < base_.size(); ++r) {
      const Time backward_end = origin_ + compute_.wall_at(backward_start_[r] - origin_ +
                                                           profile_.backward.scaled(factor_[r]));
      if (r == 0 || backward_end > latest_backward) last_rank = r;
      latest_backward = std::max(latest_backward, backward_end);
      start_[r] = std::max(backward_end, stream_free_) + profile_.optimizer.scaled(factor_[r]);
      latest_end = std::max(latest_end, start_[r]);
    }
    timeline.backward_end = latest_backward;
    timeline.end = latest_end;
    ++last_counts_[last_rank];
    out_.durations.push_back(timeline.duration());
    out_.record(std::move(timeline_));
    stage_ = Stage::open;
    // The next iteration opens when its last rank starts it, at the latest update end.
    next_ = --iterations_left_ > 0 ? latest_end : Time::max();
  }

  const BackwardProfile& profile_;
  const MergePlan& plan_;
  std::vector<double> base_;  // per-rank fixed factor: scale times straggler slowdown
  double sigma_;              // of the lognormal jitter
  int iterations_left_;
  Rng rng_;
  std::vector<Bytes> bytes_;
  std::vector<Time> ready_offset_;  // from the start of backward, cumulative max as in the FIFO
  std::vector<MessageCost> cost_;
  std::vector<Time> start_;
  std::vector<double> factor_;
  std::vector<Time> backward_start_;
  SlowedCompute compute_;  // this iteration's busy spans, offsets from origin_
  std::vector<std::int64_t> last_counts_ = std::vector<std::int64_t>(base_.size());  // per rank
  SimulationResult& out_;       // running totals and the iterations kept
  IterationTimeline timeline_;  // the iteration under way
  Stage stage_ = Stage::open;
  Time next_ = Time::zero();
  std::size_t message_ = 0;
  Time stream_free_;
  Time ready_;
  Time begin_;
  Time end_;
  Time origin_;                         // the latest backward start of this iteration
  std::vector<std::size_t> by_factor_;  // ranks in increasing factor
  bool sorted_by_factor_ = false;
  std::vector<double> intercept_;  // per rank: backward start from origin_, in picoseconds
  // Few messages: scan the ranks for each instead of sorting them for the envelope.
  const bool scan_ = plan_.size() <= 2 * static_cast<std::size_t>(std::bit_width(base_.size())) + 2;
  UpperEnvelope envelope_;  // of the ranks' ready times against the message offset
};

}  // namespace

void UpperEnvelope::clear() {
  hull_.clear();
  at_ = 0;
}

void UpperEnvelope::add(double slope, double intercept) {
  const Line line{slope, intercept};
  if (!hull_.empty() && hull_.back().slope == slope) {
    if (hull_.back().intercept >= intercept) return;
    hull_.pop_back();
  }
  // With slopes a < b < c, b is never above both where c overtakes a no later than it overtakes
  // b (cross-multiplied, no division).
  auto overtaken = [](const Line& a, const Line& b, const Line& c) {
    return (c.intercept - a.intercept) * (b.slope - a.slope) >=
           (b.intercept - a.intercept) * (c.slope - a.slope);
  };
  while (hull_.size() >= 2 && overtaken(hull_[hull_.size() - 2], hull_.back(), line)) {
    hull_.pop_back();
  }
  hull_.push_back(line);
}

double UpperEnvelope::at(double x) {
  SGDSIM_ASSERT(!hull_.empty(), "an envelope of no lines");
  while (at_ + 1 < hull_.size() && hull_[at_ + 1].at(x) >= hull_[at_].at(x)) ++at_;
  return hull_[at_].at(x);
}

std::vector<double> rank_base_factors(const ComputeHeterogeneity& heterogeneity, int gpus) {
  const auto ranks = static_cast<std::size_t>(gpus);
  std::vector<double> base(ranks, 1.0);
  for (std::size_t r = 0; r < ranks && r < heterogeneity.scale.size(); ++r) {
    base[r] = heterogeneity.scale[r];
  }
  for (const auto& [rank, slowdown] : heterogeneity.stragglers) {
    if (rank >= 0 && static_cast<std::size_t>(rank) < ranks)
      base[static_cast<std::size_t>(rank)] *= slowdown;
  }
  return base;
}

double jitter_sigma(double cv) {
  return std::sqrt(std::log1p(cv * cv));
}

double jitter_factor(double sigma, Rng& rng) {
  return sigma > 0.0 ? std::exp(sigma * rng.next_normal() - sigma * sigma / 2) : 1.0;
}

SimulationResult simulate_per_rank(const BackwardProfile& profile, const MergePlan& plan,
                                   const Collective& collective, int gpus,
                                   const ComputeHeterogeneity& heterogeneity, int iterations,
                                   std::uint64_t seed, double overlap_slowdown) {
  SGDSIM_ASSERT(gpus >= 1 && iterations >= 1, "per-rank simulation needs ranks and iterations");
  check_plan(profile, plan);
  const auto ranks = static_cast<std::size_t>(gpus);
  std::vector<double> base = rank_base_factors(heterogeneity, gpus);
  const double sigma = jitter_sigma(heterogeneity.jitter_cv);

  SimulationResult result;
  PerRankTimelines timelines(profile, plan, std::move(base), sigma, iterations, seed, collective,
                             overlap_slowdown, result);
  Simulator simulator;
  simulator.attach(timelines);
  simulator.run();
  SGDSIM_ASSERT(result.count == iterations,
                "per-rank simulation stopped before its last iteration");
  timelines.report_slowest_rank();
  // Events at rank granularity: each rank's forward, backward and update, and its part in each
  // message.
  result.events = static_cast<std::uint64_t>(iterations) * ranks * (plan.size() + 3);
  return result;
}

}  // namespace sgdsim
