#include "io/json_reader.h"

#include <set>
#include <string_view>
#include <vector>

#include "core/str_cat.h"
#include "io/npy.h"
#include "io/user_text.h"

namespace atbx::io {
namespace {

using core::StrCat;
using nlohmann::json;

// Follows the parser's events to know where it is ("inputs[1].shape") and which keys each open object has.
class JsonPathTracker {
  public:
    explicit JsonPathTracker(const std::string& name) : name_(name) {}

    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
            case json::parse_event_t::array_start:
                Enter(event == json::parse_event_t::object_start);
                break;
            case json::parse_event_t::key:
                Key(parsed.get_ref<const std::string&>());
                break;
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                frames_.pop_back();
                ElementDone();
                break;
            case json::parse_event_t::value:
                ElementDone();
                break;
        }
        return true;
    }

    // "param.rsv[2]", or "the top level".
    std::string Path() const {
        std::string path;
        for (const Frame& frame : frames_) {
            if (frame.object) {
                if (frame.seenKey) path += StrCat(path.empty() ? "" : ".", Printable(frame.key, 40));
            } else {
                path += StrCat('[', frame.count, ']');
            }
        }
        return path.empty() ? "the top level" : path;
    }

  private:
    struct Frame {
        bool object = false;
        std::set<std::string, std::less<>> keys;
        std::string key;
        bool seenKey = false;
        size_t count = 0;  // arrays: index of the element being read
    };

    void Enter(bool object) {
        if (frames_.size() >= kMaxJsonDepth) {
            throw IoError(StrCat(name_, ": JSON nested deeper than ", kMaxJsonDepth, " levels at ", Path()));
        }
        frames_.push_back({});
        frames_.back().object = object;
    }

    void Key(const std::string& key) {
        Frame& frame = frames_.back();
        if (!frame.keys.insert(key).second) {
            frame.seenKey = false;
            throw IoError(StrCat(name_, ": duplicate key ", Quoted(key), " in ", Path()));
        }
        frame.key = key;
        frame.seenKey = true;
    }

    void ElementDone() {
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().count;
    }

    const std::string& name_;
    std::vector<Frame> frames_;
};

}  // namespace

std::string DescribeJson(const json& value) {
    if (value.is_string()) return StrCat("the string ", Quoted(value.get_ref<const std::string&>()));
    if (value.is_array()) return StrCat("an array of ", value.size(), " values");
    if (value.is_object()) return StrCat("an object with ", value.size(), " keys");
    return value.dump();  // a number, true, false or null: short
}

json ParseBoundedJson(std::span<const uint8_t> text, const std::string& name) {
    JsonPathTracker tracker(name);
    try {
        return json::parse(text.begin(), text.end(), std::ref(tracker));
    } catch (const json::out_of_range& e) {
        throw IoError(
            StrCat(name, ": number out of range at ", tracker.Path(), ": ", Printable(e.what(), 200)));
    } catch (const json::exception& e) {
        throw IoError(StrCat(name, ": malformed JSON at ", tracker.Path(), ": ", Printable(e.what(), 200)));
    }
}

}  // namespace atbx::io
