// The Python environment a job will run in: installed versions of Transformer Engine,
// Megatron-Core, Megatron-Bridge, PyTorch and NCCL, read from the interpreter's package metadata
// (importlib.metadata) without importing any of them and without a shell.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/rules.h"
#include "hcp/version.h"

namespace hcp {

/// One package the version rules care about.
struct PythonPackage {
  std::string name;                ///< Our name: "transformer_engine", "megatron-core", ...
  std::string raw_version;         ///< As installed ("2.18.0+e7c550c5"); empty when missing.
  std::optional<Version> version;  ///< Parsed; nullopt when missing or unparsable.
  bool answered = false;           ///< The output had its "name=" line (installed or not).
};

/// What an interpreter has installed.
struct PythonEnvironment {
  std::string interpreter;              ///< The interpreter that was asked.
  std::vector<PythonPackage> packages;  ///< transformer_engine, megatron-core, megatron-bridge,
                                        ///< torch, nccl (in this order).

  /// Return the package named `name`, or nullptr.
  const PythonPackage* find(std::string_view name) const;
  /// Return the installed version of `name`, or nullopt when missing.
  std::optional<Version> version_of(std::string_view name) const;
  /// Return the names of the packages that are not installed.
  std::vector<std::string> missing() const;
};

/// The names PythonEnvironment::packages uses, in order.
const std::vector<std::string>& python_env_package_names();

/// The short Python program the probe runs with `-c`; it prints one "name=version" line per
/// package ("name=" when the package is not installed) and imports only importlib.metadata.
const std::string& python_env_script();

/// Parse the probe's output. Unknown lines are ignored; packages without a line are missing.
PythonEnvironment parse_python_env_output(std::string_view output, const std::string& interpreter);

/// Run `interpreter -c <script>` (fork + execvp, no shell; a bare name is searched in PATH) and
/// parse what it prints. Error when the interpreter cannot be found or run, exits non-zero, or
/// takes longer than `timeout_ms`.
Result<PythonEnvironment> probe_python_env(const std::string& interpreter, int timeout_ms = 20000);

/// Copy the detected versions (TE, MCore, Bridge, torch, NCCL) into `env`, keeping versions the
/// command line already set there.
void apply_python_env(const PythonEnvironment& py, Environment& env);

/// Return one info diagnostic naming the interpreter and the versions found, and one per
/// missing package ("megatron-bridge is not installed in /usr/bin/python3"), located as
/// "<python PATH>".
std::vector<Diagnostic> python_env_diagnostics(const PythonEnvironment& py);

}  // namespace hcp
