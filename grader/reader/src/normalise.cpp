// zh/en normalisation (normalise.hpp): the claims' text and the numbers' code points.
#include "normalise.hpp"

#include <algorithm>
#include <utility>

#include "utf8.hpp"

namespace grader::reader {
namespace {
// Traditional characters folded to Simplified, pairs in code-point order of the first:
// the ones the lesson's keys use that differ, and a few common neighbours. Both the key's
// phrases and the student's text are folded, so "相鄰的執行緒" meets "相邻". Terms that
// differ by region (效能 for 性能, 執行緒 for 线程) are the key's to list.
constexpr std::string_view kTraditionalToSimplified =
    "並并乾干併并來来個个傳传僅仅價价儘尽優优儲储內内兩两別别劃划務务區区參参問问單单圍围圖图執执塊"
    "块夠够學学實实寫写寬宽專专對对導导層层屬属帶带幹干幾几廠厂廣广強强後后從从復复態态慮虑憶忆應应"
    "據据數数斂敛於于時时會会業业極极構构標标樣样機机檔档檻槛歷历歸归決决沒没減减測测湊凑準准漸渐為"
    "为無无煩烦獨独現现瑣琐環环產产異异當当發发確确碼码穩稳窮穷節节範范簡简約约級级細细結结絡络統统"
    "經经維维網网緊紧緒绪線线緩缓練练縮缩總总續续習习脹胀與与舊旧著着處处裏里裝装裡里製制複复觀观觸"
    "触計计訊讯訓训記记訪访試试該该認认誤误課课調调請请識识護护讀读變变讓让負负費费資资軟软較较載载"
    "輕轻輸输這这連连進进運运過过遠远選选還还邊边鄰邻銷销錯错鍵键鏈链長长門门開开間间關关陣阵際际隨"
    "随雙双雜杂離离難难靈灵響响頁页項项須须頭头頸颈頻频題题類类顯显餓饿餘余饑饥驗验驟骤體体點点";

uint32_t simplified(uint32_t cp) {
  static const std::vector<std::pair<uint32_t, uint32_t>> pairs = [] {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    const std::string_view t = kTraditionalToSimplified;
    for (size_t i = 0; i < t.size();) {
      uint32_t a = 0, b = 0;
      i += decode(t, i, &a);
      i += decode(t, i, &b);
      out.push_back({a, b});
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  if (cp < 0x4E00 || cp > 0x9FFF) return cp;
  const auto it =
      std::lower_bound(pairs.begin(), pairs.end(), std::pair<uint32_t, uint32_t>{cp, 0});
  return it != pairs.end() && it->first == cp ? it->second : cp;
}

}  // namespace

void normalise(std::string_view in, std::string& out, std::vector<uint32_t>* origin) {
  out.clear();
  out.reserve(in.size());
  bool pending_space = false, last_ascii = false;
  uint32_t space_origin = 0;
  for (size_t i = 0; i < in.size();) {
    uint32_t cp = 0;
    const int len = decode(in, i, &cp);
    const auto at = static_cast<uint32_t>(i);
    i += len;
    if (cp == '\r') cp = i < in.size() && in[i] == '\n' ? 0 : '\n';
    if (cp == 0) continue;
    if (cp == kInvalid) cp = 0x1A;  // invalid: a separator
    if (cp >= 0xFF01 && cp <= 0xFF5E) cp -= 0xFEE0;
    cp = simplified(cp);  // 繁體 -> 简体 (same UTF-8 length: origin stays byte for byte)
    if (cp >= 'A' && cp <= 'Z') cp += 'a' - 'A';
    if (cp == 0x2018 || cp == 0x2019 || cp == 0x02BC || cp == 0x2032) cp = '\'';
    if (cp == 0x201C || cp == 0x201D) cp = '"';
    const bool space = cp == ' ' || cp == '\t' || cp == 0x3000 || cp == 0xA0 ||
                       (cp >= 0x2000 && cp <= 0x200B) || cp == 0x202F || cp == 0xFEFF ||
                       (cp < 0x20 && cp != '\n' && cp != 0x1A);
    if (space) {
      if (!pending_space) space_origin = at;
      pending_space = true;
      continue;
    }
    const bool is_ascii = cp < 0x80 && cp != '\n';
    if (pending_space && is_ascii && last_ascii) {
      out += ' ';
      if (origin) origin->push_back(space_origin);
    }
    pending_space = false;
    const size_t before = out.size();
    encode(cp, out);
    if (origin) origin->insert(origin->end(), out.size() - before, at);
    last_ascii = is_ascii;
  }
  if (origin) origin->push_back(static_cast<uint32_t>(in.size()));
}

std::vector<cp> code_points(std::string_view s) {
  std::vector<cp> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t c = 0;
    const auto len = static_cast<size_t>(decode(s, i, &c));
    if (c == kInvalid) c = 0xFFFD;
    if (c >= 0xFF01 && c <= 0xFF5E) c -= 0xFEE0;
    if (c == 0x3000) c = ' ';
    if (c == 0x2212 || c == 0xFE63) c = '-';  // minus signs
    out.push_back({c, i, i + len});
    i += len;
  }
  return out;
}

}  // namespace grader::reader
