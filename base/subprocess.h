// Running another program and waiting for it: the JIT's compiler invocation and anvil-compile's
// link step share this.
#ifndef ANVIL_BASE_SUBPROCESS_H_
#define ANVIL_BASE_SUBPROCESS_H_

#include <string>
#include <vector>

namespace anvil {

// Runs argv[0] (found on PATH; no shell) with `argv` and waits for it. With a non-empty `log`,
// its standard output and error go to that file (created or truncated); otherwise they are
// this process's. Returns its exit status; -1 when it could not be started or waited for, or
// ended by a signal (127: exec failed).
int RunCommand(const std::vector<std::string>& argv, const std::string& log = "");

}  // namespace anvil

#endif  // ANVIL_BASE_SUBPROCESS_H_
