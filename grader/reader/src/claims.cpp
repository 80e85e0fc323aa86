// Claims in free text (reader.hpp): a key's claims read from JSON, and claim_text, which
// tests them against the sentences of an answer (sentences.cpp, judge.cpp).
#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "claims.hpp"
#include "grader/reader/reader.hpp"
#include "normalise.hpp"
#include "sentences.hpp"

namespace grader::reader {

std::optional<ratio_condition> parse_ratio(std::string_view alt) {
  if (!alt.starts_with(ratio_prefix) || !alt.ends_with("}")) return std::nullopt;
  std::string_view rest = alt.substr(ratio_prefix.size(), alt.size() - ratio_prefix.size() - 1);
  ratio_condition c;
  if (rest.starts_with(">="))
    c.op = ratio_condition::ge, rest.remove_prefix(2);
  else if (rest.starts_with("<="))
    c.op = ratio_condition::le, rest.remove_prefix(2);
  else if (rest.starts_with(">"))
    c.op = ratio_condition::gt, rest.remove_prefix(1);
  else if (rest.starts_with("<"))
    c.op = ratio_condition::lt, rest.remove_prefix(1);
  else
    return std::nullopt;
  const std::string number(rest);
  char* end = nullptr;
  c.bound = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !(c.bound >= 1) || c.bound > 1e300)
    return std::nullopt;
  return c;
}

}  // namespace grader::reader

namespace grader {
namespace {

using reader::normalise;
using reader::parse_ratio;
using reader::ratio_prefix;
using reader::sentence;
using reader::verdict;

// The sentence's own text, trimmed of list markers.
std::string quote(const reader::text_index& t, const sentence& st) {
  const size_t b = t.origin[st.whole.b], e = t.origin[st.whole.e];
  std::string q = t.original.substr(b, e - b);
  for (char& c : q)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  const size_t lo = q.find_first_not_of(" -*+>#");
  if (lo == std::string::npos) return {};
  const size_t hi = q.find_last_not_of(' ');
  return q.substr(lo, hi - lo + 1);
}

}  // namespace

claim make_claim(const std::vector<std::vector<std::string>>& groups) {
  if (groups.empty()) throw std::invalid_argument("a claim has no pattern groups");
  claim c;
  for (const auto& g : groups) {
    if (g.empty()) throw std::invalid_argument("a claim has an empty pattern group");
    std::vector<std::string> alts;
    for (const auto& a : g) {
      std::string n;
      normalise(a, n, nullptr);
      if (n.find_first_not_of(" \n$") == std::string::npos)
        throw std::invalid_argument("a claim has a blank pattern \"" + a + "\"");
      if (n.starts_with(ratio_prefix) && !parse_ratio(n))
        throw std::invalid_argument("a claim has a magnitude pattern it cannot read \"" + a +
                                    "\" (write {ratio>=50}, {ratio<2})");
      alts.push_back(std::move(n));
    }
    c.groups.push_back(std::move(alts));
  }
  return c;
}

std::vector<claim> claims_from_json(const nlohmann::json& j) {
  if (!j.is_array() || j.empty()) throw std::invalid_argument("a list of claims is empty");
  std::vector<claim> out;
  for (const auto& entry : j) {
    if (!entry.is_object()) {
      out.push_back(make_claim(entry.get<std::vector<std::vector<std::string>>>()));
      continue;
    }
    for (const auto& [key, value] : entry.items())
      if (key != "all" && key != "unless")
        throw std::invalid_argument("a claim has an unknown key \"" + key + "\"");
    claim c = make_claim(entry.at("all").get<std::vector<std::vector<std::string>>>());
    for (const auto& a : entry.value("unless", std::vector<std::string>{})) {
      std::string n;
      normalise(a, n, nullptr);
      if (n.find_first_not_of(" \n$") == std::string::npos)
        throw std::invalid_argument("a claim has a blank \"unless\" pattern");
      c.unless.push_back(std::move(n));
    }
    out.push_back(std::move(c));
  }
  return out;
}

// ---- the text

claim_text::claim_text(std::string_view text)
    : text_(std::make_shared<const reader::text_index>(reader::index_text(text))) {}

claim_match claim_text::find(const std::vector<claim>& any) const {
  const reader::text_index& t = *text_;
  claim_match m;
  for (const sentence& st : t.sentences) {
    bool stated = false, denied = false;
    for (const claim& c : any) {
      const verdict v = reader::judge(t, st, c, true);
      stated |= v == verdict::stated;
      denied |= v == verdict::denied;
    }
    if (denied && m.denial.empty()) m.denial = quote(t, st);
    if (stated && m.status != claim_status::stated) {
      m.status = claim_status::stated;
      m.sentence = quote(t, st);
    }
  }
  if (m.status == claim_status::absent && !m.denial.empty()) {
    m.status = claim_status::denied;
    m.sentence = m.denial;
  }
  return m;
}

claim_match claim_text::find_point(const std::vector<claim>& any) const {
  const reader::text_index& t = *text_;
  std::vector<std::vector<verdict>> v(t.sentences.size());
  std::vector<bool> stated_somewhere(any.size(), false);
  for (size_t i = 0; i < t.sentences.size(); ++i)
    for (size_t c = 0; c < any.size(); ++c) {
      v[i].push_back(reader::judge(t, t.sentences[i], any[c]));
      if (v[i][c] == verdict::stated) stated_somewhere[c] = true;
    }
  claim_match m;
  for (size_t i = 0; i < t.sentences.size(); ++i) {
    const bool stated = std::find(v[i].begin(), v[i].end(), verdict::stated) != v[i].end();
    if (stated && m.status != claim_status::stated) {
      m.status = claim_status::stated;
      m.sentence = quote(t, t.sentences[i]);
    }
    bool denies = false;
    for (size_t c = 0; c < any.size(); ++c)
      denies |= v[i][c] == verdict::denied && !stated_somewhere[c];
    if (!stated && denies && m.denial.empty()) m.denial = quote(t, t.sentences[i]);
  }
  if (m.status == claim_status::absent && !m.denial.empty()) {
    m.status = claim_status::denied;
    m.sentence = m.denial;
  }
  return m;
}

}  // namespace grader
