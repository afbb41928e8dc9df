#include "io/npy.h"

#include <cctype>
#include <cstring>
#include <optional>
#include <string_view>

#include "core/str_cat.h"
#include "io/files.h"
#include "io/user_text.h"

namespace atbx::io {
namespace {

using core::StrCat;

constexpr std::string_view kMagic = "\x93NUMPY";

// Descrs atbx reads and writes: the storage of every dtype case files name (docs/case-files.md).
constexpr std::pair<std::string_view, size_t> kItemSizes[] = {
    {"<f2", 2}, {"<f4", 4}, {"<f8", 8}, {"|i1", 1}, {"<i1", 1}, {"<i2", 2}, {"<i4", 4},   {"<i8", 8},
    {"|u1", 1}, {"<u2", 2}, {"<u4", 4}, {"<u8", 8}, {"|b1", 1}, {"<c8", 8}, {"<c16", 16},
};

// A cursor over the header dict text, e.g. "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }".
class HeaderCursor {
  public:
    HeaderCursor(std::string_view text, const std::string& name) : text_(text), name_(name) {}

    void SkipSpace() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
            ++pos_;
    }
    bool Consume(char c) {
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void Expect(char c) {
        if (!Consume(c)) Fail(StrCat("expected '", c, "'"));
    }
    std::string String() {
        SkipSpace();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
            Fail("expected a quoted string");
        const char quote = text_[pos_++];
        const size_t end = text_.find(quote, pos_);
        if (end == std::string_view::npos) Fail("unterminated string");
        std::string value(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return value;
    }
    bool Bool() {
        SkipSpace();
        for (auto [word, value] : {std::pair{std::string_view("True"), true}, {"False", false}}) {
            if (text_.substr(pos_, word.size()) == word) {
                pos_ += word.size();
                return value;
            }
        }
        Fail("expected True or False");
    }
    int64_t Int() {
        SkipSpace();
        int64_t value = 0;
        size_t digits = 0;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
            const int digit = text_[pos_++] - '0';
            if (value > (INT64_MAX - digit) / 10) Fail("shape dim too large");
            value = value * 10 + digit;
            ++digits;
        }
        if (digits == 0) Fail("expected a non-negative integer");
        // Python 2 era writers append L to longs.
        if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;
        return value;
    }
    std::vector<int64_t> Tuple() {
        Expect('(');
        std::vector<int64_t> values;
        while (!Consume(')')) {
            values.push_back(Int());
            if (!Consume(',')) {
                Expect(')');
                break;
            }
        }
        return values;
    }
    bool AtEnd() {
        SkipSpace();
        return pos_ == text_.size();
    }
    [[noreturn]] void Fail(const std::string& what) const {
        throw IoError(StrCat(name_, ": malformed .npy header (", Printable(what), " at offset ", pos_,
                             "): ", Printable(text_, 200)));
    }

  private:
    std::string_view text_;
    const std::string& name_;
    size_t pos_ = 0;
};

struct Header {
    std::string descr;
    bool fortranOrder = false;
    std::vector<int64_t> shape;
};

Header ParseHeader(std::string_view text, const std::string& name) {
    HeaderCursor cursor(text, name);
    Header header;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    cursor.Expect('{');
    while (!cursor.Consume('}')) {
        const std::string key = cursor.String();
        cursor.Expect(':');
        if (key == "descr" && !seenDescr) {
            header.descr = cursor.String();
            seenDescr = true;
        } else if (key == "fortran_order" && !seenOrder) {
            header.fortranOrder = cursor.Bool();
            seenOrder = true;
        } else if (key == "shape" && !seenShape) {
            header.shape = cursor.Tuple();
            seenShape = true;
        } else {
            cursor.Fail(StrCat("unexpected or repeated key '", key, "'"));
        }
        if (!cursor.Consume(',')) {
            cursor.Expect('}');
            break;
        }
    }
    if (!cursor.AtEnd()) cursor.Fail("text after the dict");
    if (!seenDescr || !seenOrder || !seenShape) cursor.Fail("missing 'descr', 'fortran_order' or 'shape'");
    return header;
}

uint64_t ReadLittleEndian(std::span<const uint8_t> bytes, size_t offset, size_t width) {
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i)
        value |= static_cast<uint64_t>(bytes[offset + i]) << (8 * i);
    return value;
}

}  // namespace

size_t NpyItemSize(const std::string& descr) {
    for (auto [name, size] : kItemSizes) {
        if (descr == name) return size;
    }
    return 0;
}

uint64_t NpyDataOffset(std::span<const uint8_t> prefix, const std::string& name) {
    if (prefix.size() < kMagic.size() + 2 || std::memcmp(prefix.data(), kMagic.data(), kMagic.size()) != 0) {
        throw IoError(StrCat(name, ": not a .npy file (wrong magic)"));
    }
    const uint8_t major = prefix[kMagic.size()];
    if (major < 1 || major > 3) throw IoError(StrCat(name, ": unsupported .npy format version ", int{major}));
    const size_t lengthWidth = major == 1 ? 2 : 4;
    const size_t lengthAt = kMagic.size() + 2;
    if (prefix.size() < lengthAt + lengthWidth) throw IoError(StrCat(name, ": truncated .npy header"));
    const uint64_t headerLength = ReadLittleEndian(prefix, lengthAt, lengthWidth);
    if (headerLength > kMaxNpyHeaderBytes) {
        throw IoError(StrCat(name, ": .npy header of ", headerLength, " bytes (atbx reads at most ",
                             kMaxNpyHeaderBytes, ")"));
    }
    return lengthAt + lengthWidth + headerLength;
}

NpyHeader ParseNpyHeader(std::span<const uint8_t> bytes, const std::string& name) {
    const uint64_t dataAt = NpyDataOffset(bytes, name);
    if (bytes.size() < dataAt) throw IoError(StrCat(name, ": truncated .npy header"));
    const size_t textAt = bytes[kMagic.size()] == 1 ? kMagic.size() + 4 : kMagic.size() + 6;
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + textAt, dataAt - textAt);
    const Header header = ParseHeader(text, name);

    const size_t itemSize = NpyItemSize(header.descr);
    if (itemSize == 0) {
        throw IoError(StrCat(name, ": unsupported .npy dtype '", Printable(header.descr),
                             "' (expected a little-endian bool, integer, float or complex descr)"));
    }
    if (header.fortranOrder) throw IoError(StrCat(name, ": Fortran-order .npy arrays are not supported"));
    uint64_t count = 1;
    for (int64_t dim : header.shape) {
        if (dim != 0 && count > UINT64_MAX / itemSize / static_cast<uint64_t>(dim)) {
            throw IoError(StrCat(name, ": .npy shape too large"));
        }
        count *= static_cast<uint64_t>(dim);
    }
    return {header.descr, header.shape, dataAt, count * itemSize};
}

void CheckNpyDataSize(const NpyHeader& header, uint64_t fileBytes, const std::string& name) {
    const uint64_t actual = fileBytes - header.dataOffset;
    if (actual != header.dataBytes) {
        throw IoError(StrCat(name, ": .npy data is ", actual, " bytes, its header's shape and dtype need ",
                             header.dataBytes,
                             actual < header.dataBytes ? " (truncated file)" : " (trailing bytes)"));
    }
}

NpyArray ParseNpy(std::span<const uint8_t> bytes, const std::string& name) {
    const NpyHeader header = ParseNpyHeader(bytes, name);
    CheckNpyDataSize(header, bytes.size(), name);
    const auto data = bytes.subspan(header.dataOffset);
    return {header.descr, header.shape, TensorBytes(std::vector<uint8_t>(data.begin(), data.end()))};
}

NpyArray MapNpy(const std::filesystem::path& path) {
    const RegularFile file(path);
    // Magic, version and header length: 10 bytes (version 1) or 12.
    std::vector<uint8_t> head(std::min<uint64_t>(file.size(), 12));
    file.ReadAt(0, head);
    const uint64_t dataAt = NpyDataOffset(head, file.name());
    if (file.size() < dataAt) throw IoError(StrCat(file.name(), ": truncated .npy header"));
    head.resize(dataAt);
    file.ReadAt(0, head);
    const NpyHeader header = ParseNpyHeader(head, file.name());
    CheckNpyDataSize(header, file.size(), file.name());
    if (header.dataBytes == 0) return {header.descr, header.shape, TensorBytes()};
    // Data at an offset that is not a multiple of 64 (hand-written headers) is copied, so that the kernels
    // always see element-aligned data.
    if (header.dataOffset % 64 != 0) {
        std::vector<uint8_t> data(header.dataBytes);
        file.ReadAt(header.dataOffset, data);
        return {header.descr, header.shape, TensorBytes(std::move(data))};
    }
    return {header.descr, header.shape,
            TensorBytes(std::make_shared<const MappedFile>(file), header.dataOffset, header.dataBytes)};
}

std::string NpyFileHeader(const std::string& descr, std::span<const int64_t> shape) {
    std::string tuple;
    for (size_t i = 0; i < shape.size(); ++i)
        tuple += StrCat(i ? ", " : "", shape[i]);
    if (shape.size() == 1) tuple += ',';
    std::string dict = StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (", tuple, "), }");
    // Pad with spaces so that magic + version + length + header is a multiple of 64, ending in a newline.
    const size_t prefix = kMagic.size() + 2 + 2;
    const size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - prefix - dict.size() - 1, ' ');
    dict += '\n';
    std::string header(kMagic);
    header += {1, 0, static_cast<char>(dict.size() & 0xFF), static_cast<char>((dict.size() >> 8) & 0xFF)};
    return header + dict;
}

}  // namespace atbx::io
