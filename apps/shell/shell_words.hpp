#pragma once
// How the shell reads what is typed or scripted: a text holds commands
// separated by ';' or newlines, and a command is words separated by blanks.
//
//   train -train "my corpus.txt" -output v.txt ; status
//   # a line whose first word starts with '#' is a comment
//
// Only double quotes group words ("a b" is one word, "" an empty one;
// inside them \" and \\ stand for " and \). Single quotes are ordinary
// characters, because vocabulary words such as don't contain them. A ';'
// inside double quotes does not separate commands.
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

/// One command as typed: its words, the first being the command's name.
using shell_words = std::vector<std::string>;

/// Splits `text` into commands and their words. Blank commands and comments
/// are dropped. Fails with one line on an unterminated double quote.
expected<std::vector<shell_words>> split_shell_text(std::string_view text);

/// The words back as one line, quoted where needed, so that splitting it
/// again gives the same words (for messages).
std::string join_shell_words(const shell_words& words);

} // namespace gridvec
