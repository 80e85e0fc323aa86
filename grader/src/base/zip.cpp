// The stored-zip writer (see zip.hpp); layout as in PKWARE's APPNOTE.TXT, sections 4.3-4.4.
#include "grader/base/zip.hpp"

#include <array>

#include "grader/base/error.hpp"

namespace grader {
namespace {

void put16(std::string& out, unsigned v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

constexpr unsigned kDosTime = 0;                        // 00:00:00
constexpr unsigned kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01: every build the same

bool bad_name(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.find('\\') != std::string::npos) return true;
  for (size_t start = 0; start <= name.size();) {
    const size_t end = std::min(name.find('/', start), name.size());
    const std::string part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

std::uint32_t crc32(const std::string& data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : data) c = table[(c ^ b) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string zip_archive(const std::vector<zip_entry>& entries) {
  if (entries.size() > 0xffff) throw cannot_grade("a zip archive holds at most 65,535 files");
  std::string out, central;
  for (const zip_entry& e : entries) {
    if (bad_name(e.name))
      throw cannot_grade("not a relative file name for a zip archive: " + e.name);
    if (e.data.size() >= 0xffffffffu || out.size() >= 0xffffffffu)
      throw cannot_grade("a zip archive of 4 GiB or more needs zip64");
    const std::uint32_t crc = crc32(e.data), size = static_cast<std::uint32_t>(e.data.size());
    const std::uint32_t offset = static_cast<std::uint32_t>(out.size());
    // Local file header.
    put32(out, 0x04034b50);
    put16(out, 20);       // version needed: 2.0
    put16(out, 1 << 11);  // flags: names are UTF-8
    put16(out, 0);        // stored
    put16(out, kDosTime);
    put16(out, kDosDate);
    put32(out, crc);
    put32(out, size);
    put32(out, size);
    put16(out, static_cast<unsigned>(e.name.size()));
    put16(out, 0);
    out += e.name;
    out += e.data;
    // Its central directory record.
    put32(central, 0x02014b50);
    put16(central, (3 << 8) | 20);  // made by Unix, 2.0: the external attributes are a mode
    put16(central, 20);
    put16(central, 1 << 11);
    put16(central, 0);
    put16(central, kDosTime);
    put16(central, kDosDate);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, static_cast<unsigned>(e.name.size()));
    put16(central, 0);  // extra
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);  // internal attributes
    put32(central, (0100000u | (e.executable ? 0755u : 0644u)) << 16);
    put32(central, offset);
    central += e.name;
  }
  if (out.size() + central.size() >= 0xffffffffu)
    throw cannot_grade("a zip archive of 4 GiB or more needs zip64");
  const std::uint32_t directory = static_cast<std::uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50);  // end of central directory
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<unsigned>(entries.size()));
  put16(out, static_cast<unsigned>(entries.size()));
  put32(out, static_cast<std::uint32_t>(central.size()));
  put32(out, directory);
  put16(out, 0);
  return out;
}

}  // namespace grader
