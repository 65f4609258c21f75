// Strict JSON reading (sim/base/json_fields.h) on hostile documents: every problem is an InputError
// naming the place, never a crash, an uncaught parser exception or a silently dropped value.
#include "sim/base/json_fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace gpumux {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::string& text, std::size_t first_line = 1) {
  try {
    parse_json_text(text, "f.json", first_line);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError for " << text.substr(0, 60);
  return "";
}

TEST(StrictJson, NestingDeeperThanTheLimitIsAnError) {
  // 100,000 levels once overflowed the stack of the error-message printer.
  const std::string deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_THAT(error_of(deep), HasSubstr("f.json:1:"));
  EXPECT_THAT(error_of(deep), HasSubstr("nested deeper than 128 levels"));
  // Exactly the limit is fine; brackets inside strings do not count.
  const std::string limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_NO_THROW(parse_json_text(limit, "f.json"));
  EXPECT_NO_THROW(parse_json_text("[\"" + std::string(1000, '[') + "\\\"\"]", "f.json"));
  EXPECT_THAT(error_of("[" + limit + "]"), HasSubstr("f.json:1:129"));
}

TEST(StrictJson, NumberBeyondDoubleNamesTheField) {
  const std::string e = error_of("{\"cluster\": {\"seed\": 1e400}}");
  EXPECT_THAT(e, HasSubstr("f.json:1:"));
  EXPECT_THAT(e, HasSubstr("field 'seed': number out of range"));
  EXPECT_THAT(error_of("\n[-1e999]", 5), HasSubstr("f.json:6:"));
}

TEST(StrictJson, DuplicateKeyIsAnErrorWithItsPointer) {
  EXPECT_THAT(error_of(R"({"a": [1, {"b/c": 1, "b/c": 2}]})"),
              HasSubstr("f.json#/a/1/b~1c: field 'b/c': duplicate key"));
  EXPECT_THAT(error_of(R"({"x": 1, "x": 1})"), HasSubstr("f.json#/x"));
  // The same key in different objects is fine.
  const auto ok = parse_json_text(R"({"a": {"x": 1}, "b": {"x": 2}, "x": [3]})", "f.json");
  EXPECT_EQ(ok["b"]["x"], 2);
  EXPECT_EQ(ok["x"][0], 3);
}

TEST(StrictJson, JsonLinesNameTheLine) {
  try {
    parse_json_line(R"({"id": "a", "id": "b"})", "t.jsonl", 7);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("t.jsonl:7#/id: field 'id': duplicate key"));
  }
}

TEST(StrictJson, SyntaxErrorsKeepLineAndColumn) {
  EXPECT_THAT(error_of("{\n  \"a\": ,\n}"), HasSubstr("f.json:2:"));
  EXPECT_THAT(error_of("{\n  \"a\": ,\n}"), HasSubstr("invalid JSON: syntax error"));
}

TEST(StrictJson, AFolderIsNotAFile) {
  const auto dir = std::filesystem::path(::testing::TempDir());
  try {
    read_json_file(dir.string());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is a folder"));
  }
}

}  // namespace
}  // namespace gpumux
