//===- IncludeScannerTest.cpp - Unit tests for the header checks ------------===//
//
// The scan that keeps a candidate from including anything but the toolkit's
// headers (THREATS row 1), tested against a fake toolkit directory so that
// every way of naming a file is checked without NVRTC: absolute paths, `..`,
// digraphs, splices, comments before `#`, computed includes, __has_include,
// and a symlink inside the toolkit that points out of it.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Cuda/IncludeScanner.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir::cuda_agent;

namespace {

class IncludeScannerTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("cuda-agent-scan", root));
    include = (root + "/include").str();
    outside = (root + "/outside.h").str();
    ASSERT_FALSE(llvm::sys::fs::create_directories(include + "/cuda/std"));
    writeFile(include + "/cuda_fp16.h");
    writeFile(include + "/cuda/std/cstdint");
    writeFile(outside);
    ASSERT_FALSE(llvm::sys::fs::create_link(outside, include + "/escape.h"));
  }

  void TearDown() override { llvm::sys::fs::remove_directories(root); }

  static void writeFile(const std::string &path) {
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    ASSERT_FALSE(ec) << path;
    out << "// header\n";
  }

  /// The error message for `source`, or "" when it is accepted.
  std::string check(llvm::StringRef source) {
    llvm::Error err = checkCandidateIncludes(source, {include});
    return err ? llvm::toString(std::move(err)) : std::string();
  }

  llvm::SmallString<128> root;
  std::string include;
  std::string outside;
};

#define EXPECT_REJECTED(source, substring)                                    \
  do {                                                                        \
    std::string message = check(source);                                      \
    EXPECT_NE(message.find(substring), std::string::npos)                     \
        << "source:\n" << llvm::StringRef(source).str() << "\nmessage: '" << message << "'";       \
  } while (false)

TEST_F(IncludeScannerTest, AcceptsToolkitHeaders) {
  EXPECT_EQ(check("#include <cuda_fp16.h>\n"), "");
  EXPECT_EQ(check("#include \"cuda_fp16.h\"\n"), "");
  EXPECT_EQ(check("  #  include <cuda/std/cstdint>\n"), "");
  EXPECT_EQ(check("#include <cuda_fp16.h> // half\r\nint x;\r\n"), "");
  // Not directives: a line comment, a string, a declaration.
  EXPECT_EQ(check("// #include <stdio.h>\nint x; // see #include <stdio.h>\n"
                  "const char *s = \"#include <stdio.h>\";\n"),
            "");
  EXPECT_EQ(check("int y = 1'000'000; char c = 'a';\n"), "");
  EXPECT_EQ(check("int my__has_include_flag = 0;\n"), "");
}

TEST_F(IncludeScannerTest, RejectsHeadersOutsideTheToolkit) {
  EXPECT_REJECTED("#include <stdio.h>\n",
                  "'#include <stdio.h>' is not allowed: 'stdio.h' is not a "
                  "CUDA toolkit header");
  EXPECT_REJECTED("int x;\n\n#include <cstdlib>\n", "line 3: '#include <cstdlib>'");
  EXPECT_REJECTED("#include \"../../etc/passwd\"\n", "'..' leaves");
  EXPECT_REJECTED("#include <cuda/../../outside.h>\n", "'..' leaves");
  EXPECT_REJECTED("#include \"/etc/passwd\"\n", "absolute path");
  EXPECT_REJECTED("#include <cuda\\std\\cstdint>\n", "backslash");
  EXPECT_REJECTED("#include <>\n", "empty header name");
  EXPECT_REJECTED("#include_next <stdio.h>\n", "'#include_next <stdio.h>'");
  EXPECT_REJECTED("#import <stdio.h>\n", "'#import <stdio.h>'");
  EXPECT_REJECTED("#embed \"/etc/passwd\"\n", "absolute path");
  // A symlink in the toolkit that points out of it.
  EXPECT_REJECTED("#include <escape.h>\n", "not a CUDA toolkit header");
}

TEST_F(IncludeScannerTest, SuggestsLibcuxxForStandardHeaders) {
  EXPECT_REJECTED("#include <cstdint>\n", "; use <cuda/std/cstdint> instead");
  EXPECT_REJECTED("#include <stdint.h>\n", "; use <cuda/std/cstdint> instead");
  EXPECT_REJECTED("#include <type_traits>\n",
                  "; use <cuda/std/type_traits> instead");
  // No replacement to suggest for host-only headers.
  std::string message = check("#include <stdio.h>\n");
  EXPECT_EQ(message.find("instead"), std::string::npos) << message;
}

TEST_F(IncludeScannerTest, FindsDisguisedDirectives) {
  EXPECT_REJECTED("%:include \"/etc/passwd\"\n", "absolute path");
  EXPECT_REJECTED("#\\\ninclude \"/etc/passwd\"\n", "absolute path");
  EXPECT_REJECTED("#inc\\\nlude \"/etc/passwd\"\n", "absolute path");
  EXPECT_REJECTED("/* c */ # /* c */ include /* c */ <stdio.h>\n", "stdio.h");
  EXPECT_REJECTED("/* a comment\n   over lines */ #include <stdio.h>\n",
                  "line 2:");
  EXPECT_REJECTED("int x; /* a comment\n   over lines */ #include <stdio.h>\n",
                  "line 2:");
  EXPECT_REJECTED("\f\v\t#include <stdio.h>\n", "stdio.h");
  // A raw string that a naive lexer would misread: conservatively rejected.
  EXPECT_REJECTED("const char *s = R\"(\n/* )\";\n#include </etc/passwd>\n"
                  "// */\n",
                  "absolute path");
  EXPECT_REJECTED("#define H </etc/passwd>\n#include H\n",
                  "computed includes cannot be checked");
  EXPECT_REJECTED("#include <stdio.h", "unterminated header name");
  EXPECT_REJECTED("#if __has_include(\"/etc/passwd\")\n#endif\n",
                  "'__has_include \"/etc/passwd\"' is not allowed");
  EXPECT_REJECTED("#if __has_include_next(<stdio.h>)\n#endif\n",
                  "__has_include_next <stdio.h>");
  EXPECT_REJECTED("#if __has_include\n#endif\n", "must be followed by");
}

TEST_F(IncludeScannerTest, RejectsAmbiguousLineEnds) {
  EXPECT_REJECTED("int x;\r#include <stdio.h>\n",
                  "carriage return not followed by a newline");
  EXPECT_REJECTED(llvm::StringRef("int x;\n\0#include <stdio.h>\n", 26),
                  "line 2: the source contains a NUL byte");
}

TEST_F(IncludeScannerTest, MissingIncludeDirAllowsNothing) {
  llvm::Error err = checkCandidateIncludes("#include <cuda_fp16.h>\n",
                                           {root.str().str() + "/nope"});
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("not a CUDA toolkit header"),
            std::string::npos);
}

} // namespace
