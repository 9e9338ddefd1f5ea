#pragma once
// Subcommands of the gridvec binary.
#include <string>
#include <vector>

namespace gridvec {

int cli_train(const std::vector<std::string>& args);
int cli_nearest(const std::vector<std::string>& args);
int cli_analogy(const std::vector<std::string>& args);
int cli_doesnt_match(const std::vector<std::string>& args);
int cli_node(const std::vector<std::string>& args);
int cli_submit(const std::vector<std::string>& args);
int cli_shell(const std::vector<std::string>& args);
int cli_keygen(const std::vector<std::string>& args);
int cli_eval(const std::vector<std::string>& args);
int cli_export(const std::vector<std::string>& args);
int cli_table(const std::vector<std::string>& args);
int cli_lbfgs(const std::vector<std::string>& args);
int cli_stop(const std::vector<std::string>& args);
int cli_config(const std::vector<std::string>& args);

/// Logs go to stderr (stdout is for results), one plain line each.
void setup_logging();

} // namespace gridvec
