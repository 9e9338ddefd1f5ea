#include "apps/shell/shell_words.hpp"

namespace gridvec {

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

} // namespace

expected<std::vector<shell_words>> split_shell_text(std::string_view text) {
  std::vector<shell_words> commands;
  shell_words words;
  std::string word;
  bool in_word = false;    // a word has started (it may be "" from quotes)
  bool in_comment = false; // skipping to the end of the line
  auto end_word = [&] {
    if (in_word)
      words.push_back(std::move(word));
    word.clear();
    in_word = false;
  };
  auto end_command = [&] {
    end_word();
    if (!words.empty())
      commands.push_back(std::move(words));
    words.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_comment) {
      if (c == '\n') {
        in_comment = false;
        end_command();
      }
      continue;
    }
    if (c == '"') {
      in_word = true;
      const size_t open = i;
      for (++i;; ++i) {
        if (i >= text.size())
          return failure{"unterminated \" (opened at column " + std::to_string(open + 1) + ")"};
        if (text[i] == '"')
          break;
        if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\'))
          ++i;
        word += text[i];
      }
    } else if (c == '\n' || c == ';') {
      end_command();
    } else if (blank(c)) {
      end_word();
    } else if (c == '#' && !in_word && words.empty()) {
      in_comment = true;
    } else {
      in_word = true;
      word += c;
    }
  }
  end_command();
  return commands;
}

std::string join_shell_words(const shell_words& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty())
      out += ' ';
    bool plain = !w.empty() && (w.front() != '#' || !out.empty());
    for (char c : w)
      if (blank(c) || c == '\n' || c == ';' || c == '"')
        plain = false;
    if (plain) {
      out += w;
      continue;
    }
    out += '"';
    for (char c : w) {
      if (c == '"' || c == '\\')
        out += '\\';
      out += c;
    }
    out += '"';
  }
  return out;
}

} // namespace gridvec
