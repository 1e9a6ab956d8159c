#include "base/subprocess.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

namespace anvil {

int RunCommand(const std::vector<std::string>& argv, const std::string& log) {
  if (argv.empty()) return -1;
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (!log.empty()) {
      FILE* out = std::freopen(log.c_str(), "w", stdout);
      (void)out;
      dup2(fileno(stdout), fileno(stderr));
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace anvil
