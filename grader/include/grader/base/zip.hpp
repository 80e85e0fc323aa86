// Writes a .zip archive of stored (uncompressed) entries, byte for byte the same for the
// same entries: fixed timestamps, entries in the order given, Unix modes kept (so an
// unzip makes scripts executable). For the Gradescope bundle (grader dev gradescope).
// No Debian library in the course's dependencies writes zip files; the stored format
// needs only headers and a CRC-32.   Tests: grader_tests "[zip]"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace grader {

struct zip_entry {
  std::string name;  // relative, '/'-separated
  std::string data;
  bool executable = false;  // mode 0755 instead of 0644
};

// CRC-32 (ISO-HDLC, the zip and gzip polynomial) of `data`.
std::uint32_t crc32(const std::string& data);

// The archive's bytes. Throws cannot_grade for a name that is empty, absolute or has
// "..", or for more than 65,535 entries or 4 GiB (zip64 is not written).
std::string zip_archive(const std::vector<zip_entry>& entries);

}  // namespace grader
