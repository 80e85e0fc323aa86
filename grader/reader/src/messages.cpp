// The reader's messages for the grader's feedback (reader.hpp), in zh or en: what an
// answer's number was read as, and why it could not be read.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "grader/reader/reader.hpp"

namespace grader {

std::string format_number(double x) {
  return fmt::format("{:.6g}", x);
}

namespace {

std::string said_dimension(const quantity_result& q, lang l) {
  const std::string& d = q.read_as.dimension;
  if (d == "bytes") return tr(l, "字节数", "a number of bytes");
  if (d == "bytes/s") return tr(l, "速率", "a rate");
  if (d == "s") return tr(l, "时间", "a time");
  if (d == "flop") return tr(l, "浮点运算次数", "a FLOP count");
  if (d == "flop/s") return tr(l, "算力（FLOP/s）", "a FLOP rate");
  if (q.read_as.percent) return tr(l, "百分比", "a percentage");
  return tr(l, "一个纯数", "a plain number");
}

std::string asked_dimension(const unit_info& key, std::string_view key_unit, lang l) {
  const std::string& d = key.dimension;
  const char* zh = "个数（{}）";
  const char* en = "a count ({})";
  if (d == "bytes") zh = "字节数（{}）", en = "bytes ({})";
  if (d == "bytes/s") zh = "速率（{}）", en = "a rate ({})";
  if (d == "s") zh = "时间（{}）", en = "a time ({})";
  if (d == "flop") zh = "浮点运算次数（{}）", en = "a FLOP count ({})";
  if (d == "flop/s") zh = "算力（{}）", en = "a FLOP rate ({})";
  if (key.percent) zh = "百分比（{}）", en = "a percentage ({})";
  if (d.empty() && key_unit.empty()) return tr(l, "一个纯数", "a plain number");
  return trf(l, zh, en, key_unit);
}

}  // namespace

std::string describe_reading(const quantity_result& q, std::string_view key_unit, lang l) {
  const std::string v = format_number(q.value);
  const std::optional<unit_info> key = parse_unit(key_unit);
  // A count word (sectors, times) says nothing a bare number does not.
  if (key && key->plain && q.unit_assumed) return trf(l, "“{}”", "\"{}\"", q.quoted);
  if (q.unit_assumed && !key_unit.empty())
    return trf(l, "“{}”（按 {} {} 读）", "\"{}\" (read as {} {})", q.quoted, v, key_unit);
  if (q.unit_assumed || q.unit == key_unit) return trf(l, "“{}”", "\"{}\"", q.quoted);
  return trf(l, "“{}” = {}{}{}", "\"{}\" = {}{}{}", q.quoted, v, key_unit.empty() ? "" : " ",
             key_unit);
}

std::string describe_error(const quantity_result& q, std::string_view key_unit, lang l) {
  switch (q.error) {
    case quantity_error::none:
      return {};
    case quantity_error::no_number:
      return trf(l, "需要一个数字，写的是“{}”", "needs a number, got \"{}\"", q.quoted);
    case quantity_error::overflow_or_nan:
      return trf(l, "“{}”不是有限的数", "\"{}\" is not a finite number", q.quoted);
    case quantity_error::wrong_dimension: {
      const std::optional<unit_info> key = parse_unit(key_unit);
      return trf(l, "“{}”是{}，题目问的是{}", "\"{}\" is {}, the question asks for {}", q.quoted,
                 said_dimension(q, l), key ? asked_dimension(*key, key_unit, l) : "?");
    }
    case quantity_error::ambiguous:
      if (key_unit.empty())
        return trf(l, "“{}”有多种读法；请只写一个数",
                   "\"{}\" can be read more than one way; write one number", q.quoted);
      return trf(l, "“{}”有多种读法；请只写一个数和单位（{}）",
                 "\"{}\" can be read more than one way; write one number and its unit ({})",
                 q.quoted, key_unit);
    case quantity_error::bad_key_unit:
      return trf(l, "答案键的单位“{}”无法识别", "the answer key's unit \"{}\" is unknown",
                 key_unit);
  }
  return {};
}

}  // namespace grader
