// The judge of one sentence against one claim (claims.hpp): do the claim's groups meet
// there, and only through negated matches, or in a sentence that calls them wrong?
#include <algorithm>
#include <optional>

#include "claims.hpp"

namespace grader::reader {
namespace {

using matches = std::vector<std::vector<span>>;  // per group of the claim

// Where one alternative matches in the sentence: a magnitude for "{ratio>=50}"; for
// "差不多$" only at the end of a clause, not in "差不多是 HBM 的 10 倍".
void match_alternative(const text_index& t, const sentence& st, std::string_view alt,
                       std::vector<span>& out) {
  const std::string& s = t.norm;
  const size_t b = st.whole.b, e = st.whole.e;
  if (alt.starts_with(ratio_prefix)) {
    const std::optional<ratio_condition> cond = parse_ratio(alt);
    auto m = std::lower_bound(t.magnitudes.begin(), t.magnitudes.end(), b,
                              [](const magnitude& x, size_t v) { return x.begin < v; });
    for (; cond && m != t.magnitudes.end() && m->end <= e; ++m)
      if (cond->holds(*m)) out.push_back({m->begin, m->end});
    return;
  }
  const bool anchored = alt.size() > 1 && alt.back() == '$';
  if (anchored) alt.remove_suffix(1);
  each_match(s, b, e, alt, [&](size_t at, size_t end) {
    size_t next = end;
    while (next < e && s[next] == ' ') ++next;
    if (!anchored || next == e ||
        std::string_view(".!?;").find(s[next]) != std::string_view::npos || starts(s, next, "。") ||
        std::binary_search(st.clauses.begin(), st.clauses.end(), next))
      out.push_back({at, end});
  });
}

// The matches of each group, longest only: "just for speed" hides the "for speed" inside
// it, so "not just for speed" negates both. nullopt when a group has none, or when the
// sentence holds one of the claim's `unless`.
std::optional<matches> group_matches(const text_index& t, const sentence& st, const claim& c) {
  for (std::string_view alt : c.unless) {
    bool found = false;
    each_match(t.norm, st.whole.b, st.whole.e, alt, [&](size_t, size_t) { found = true; });
    if (found) return std::nullopt;
  }
  matches occ(c.groups.size());
  for (size_t g = 0; g < c.groups.size(); ++g) {
    for (std::string_view alt : c.groups[g]) match_alternative(t, st, alt, occ[g]);
    if (occ[g].empty()) return std::nullopt;
    auto& v = occ[g];
    std::sort(v.begin(), v.end(),
              [](span x, span y) { return x.b < y.b || (x.b == y.b && x.e > y.e); });
    size_t kept = 0, reach = 0;
    for (const span& o : v)
      if (kept == 0 || o.e > reach) {
        v[kept++] = o;
        reach = o.e;
      }
    v.resize(kept);
  }
  return occ;
}

// The claim's own words, sorted by start: a cue inside them ("not reduce", "不变") is part
// of what the claim says.
class own_words {
 public:
  explicit own_words(const matches& occ) {
    for (const auto& group : occ) own_.insert(own_.end(), group.begin(), group.end());
    std::sort(own_.begin(), own_.end(), [](span x, span y) { return x.b < y.b; });
    max_end_.resize(own_.size());
    for (size_t i = 0; i < own_.size(); ++i)
      max_end_[i] = std::max(own_[i].e, i ? max_end_[i - 1] : size_t{0});
    suffix_max_end_.assign(own_.size() + 1, 0);
    for (size_t i = own_.size(); i-- > 0;)
      suffix_max_end_[i] = std::max(own_[i].e, suffix_max_end_[i + 1]);
  }
  // A cue counts unless it overlaps the claim's words; a refuting phrase counts unless it
  // is inside them ("but it doesn't" still refutes a claim whose subject is "it").
  bool counts(const cue& q) const {
    const bool refute = q.kind == cue::refute_before || q.kind == cue::refute_after;
    return refute ? !inside(q.at) : !overlaps(q.at);
  }
  // Refuted: a refuting phrase before all of the claim's words or after all of them (words
  // inside the phrase aside).
  bool refutes(const cue& q) const {
    const size_t k = starting_before(q.at.b), k2 = starting_before(q.at.e);
    if (q.kind == cue::refute_before)
      return k == 0 && (k2 == 0 || max_end_[k2 - 1] <= q.at.e) && k2 < own_.size();
    if (q.kind == cue::refute_after)
      return (k == 0 || max_end_[k - 1] <= q.at.b) && suffix_max_end_[k] <= q.at.e && k > 0;
    return false;
  }

 private:
  std::vector<span> own_;
  std::vector<size_t> max_end_, suffix_max_end_;

  bool overlaps(span q) const {
    const auto it =
        std::lower_bound(own_.begin(), own_.end(), q.e, [](span x, size_t v) { return x.b < v; });
    const size_t k = static_cast<size_t>(it - own_.begin());
    return k > 0 && max_end_[k - 1] > q.b;
  }
  bool inside(span q) const {
    const auto it =
        std::upper_bound(own_.begin(), own_.end(), q.b, [](size_t v, span x) { return v < x.b; });
    const size_t k = static_cast<size_t>(it - own_.begin());
    return k > 0 && max_end_[k - 1] >= q.e;
  }
  size_t starting_before(size_t at) const {  // how many own spans start before at
    return static_cast<size_t>(
        std::lower_bound(own_.begin(), own_.end(), at, [](span x, size_t v) { return x.b < v; }) -
        own_.begin());
  }
};

size_t index_in(const std::vector<size_t>& starts, size_t at) {
  return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), at) - starts.begin());
}

// Whether a cue negates the match o: one a few words before it in its clause, or one right
// after it. `cues` are sorted by start.
bool negated(const text_index& t, const sentence& st, const std::vector<const cue*>& cues, span o) {
  const auto& units2 = t.units2;
  const auto clause = std::upper_bound(st.clauses.begin(), st.clauses.end(), o.b);
  const span cl{clause == st.clauses.begin() ? st.whole.b : *(clause - 1),
                clause == st.clauses.end() ? st.whole.e : *clause};
  auto it = std::lower_bound(cues.begin(), cues.end(), o.b,
                             [](const cue* q, size_t v) { return q->at.b < v; });
  for (auto k = it; k != cues.begin();) {
    const cue& q = **--k;
    if (units2[o.b] - units2[q.at.b] > 16) break;
    if (q.at.e > o.b || q.at.b < cl.b) continue;
    const uint32_t gap = units2[o.b] - units2[q.at.e];
    if ((q.kind == cue::before && gap <= 6) || (q.kind == cue::weak && q.follower == o.b) ||
        (q.kind == cue::unchanged_before && gap <= 2))
      return true;
  }
  for (auto k = it; k != cues.end(); ++k) {
    const cue& q = **k;
    if (q.at.b < o.e) continue;  // a refutation around o
    if (q.at.b >= cl.e || units2[q.at.b] - units2[o.e] > 2) break;
    if (q.kind == cue::after) return true;
  }
  return false;
}

// The groups meet: one match of each, none overlapping another ("adjacent threads" is not
// also the "adjacent" of "adjacent addresses"), in the claim's order across clauses
// ("FLOPs stay O(N²d), memory drops to O(N)" does not say FLOPs drop), in any order within
// one ("计算量减少了").
bool meet(const sentence& st, const matches& occ, bool one_part) {
  std::vector<std::pair<span, size_t>> chosen;  // match, clause
  for (const auto& group : occ) {
    const size_t before = chosen.size();
    for (const span& o : group) {
      const size_t cl = index_in(st.clauses, o.b);
      bool ok = true;
      for (const auto& [at, other] : chosen)
        ok &=
            (other == cl ||
             (at.b < o.b && (!one_part || index_in(st.parts, at.b) == index_in(st.parts, o.b)))) &&
            (o.e <= at.b || at.e <= o.b);
      if (ok) {
        chosen.push_back({o, cl});
        break;
      }
    }
    if (chosen.size() == before) return false;
  }
  return true;
}

}  // namespace

// Stated when the groups meet without negated matches; denied when they meet only with
// them, or in a sentence that calls the claim wrong.
verdict judge(const text_index& t, const sentence& st, const claim& c, bool one_part) {
  const std::optional<matches> occ = group_matches(t, st, c);
  if (!occ) return verdict::absent;
  const own_words own(*occ);
  std::vector<const cue*> cues;
  bool refuted = false;
  for (const cue& q : st.cues)
    if (own.counts(q)) {
      cues.push_back(&q);
      refuted |= own.refutes(q);
    }
  if (!meet(st, *occ, one_part)) return verdict::absent;
  if (refuted) return verdict::denied;
  matches free(occ->size());
  for (size_t g = 0; g < occ->size(); ++g)
    for (const span& o : (*occ)[g])
      if (!negated(t, st, cues, o)) free[g].push_back(o);
  return meet(st, free, one_part) ? verdict::stated : verdict::denied;
}

}  // namespace grader::reader
