#include "bench/peer_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/str_cat.h"

namespace atbx::cli::bench {
namespace {

// How often a wait for an answer checks that the peer is alive: a process the peer started may hold its
// output open after the peer itself died, so the end of its output alone would never come.
constexpr int kLivenessCheckMs = 500;

bool WriteAll(int fd, const std::string& text) {
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

nlohmann::json Failure(const std::string& message) {
    return {{"error", message}};
}

}  // namespace

std::unique_ptr<PeerProcess> PeerProcess::Start(const std::vector<std::string>& argv, std::string* error) {
    int toChild[2];
    int fromChild[2];
    if (pipe(toChild) != 0) {
        *error = std::strerror(errno);
        return nullptr;
    }
    if (pipe(fromChild) != 0) {
        *error = std::strerror(errno);
        close(toChild[0]);
        close(toChild[1]);
        return nullptr;
    }
    // A peer that dies must not kill the benchmark with SIGPIPE: writes to it then fail instead.
    signal(SIGPIPE, SIG_IGN);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(toChild[0], STDIN_FILENO);
        dup2(fromChild[1], STDOUT_FILENO);
        close(toChild[0]);
        close(toChild[1]);
        close(fromChild[0]);
        close(fromChild[1]);
        std::vector<char*> args;
        for (const std::string& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(toChild[0]);
    close(fromChild[1]);
    if (pid < 0) {
        *error = std::strerror(errno);
        close(toChild[1]);
        close(fromChild[0]);
        return nullptr;
    }
    std::unique_ptr<PeerProcess> peer(new PeerProcess(pid, toChild[1], fromChild[0]));
    peer->hello_ = peer->ReadLine();
    if (peer->hello_.contains("error")) {
        *error = peer->hello_["error"].get<std::string>();
        return nullptr;
    }
    return peer;
}

PeerProcess::~PeerProcess() {
    close(toPeer_);  // end of input: the peer exits
    close(fromPeer_);
    int status = 0;
    if (!exited_) waitpid(pid_, &status, 0);
}

bool PeerProcess::Exited() {
    int status = 0;
    if (!exited_ && waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        end_ = WIFSIGNALED(status) ? core::StrCat("killed by signal ", WTERMSIG(status))
                                   : core::StrCat("exit status ", WEXITSTATUS(status));
    }
    return exited_;
}

nlohmann::json PeerProcess::ReadLine() {
    bool gone = exited_;  // once the peer has exited, only what it wrote before is read, without waiting
    for (;;) {
        const size_t end = pending_.find('\n');
        if (end != std::string::npos) {
            const std::string text = pending_.substr(0, end);
            pending_.erase(0, end + 1);
            nlohmann::json answer = nlohmann::json::parse(text, nullptr, false);
            if (!answer.is_object())
                return Failure("the peer answered something other than a JSON object: " + text);
            return answer;
        }
        pollfd output{fromPeer_, POLLIN, 0};
        const int ready = poll(&output, 1, gone ? 0 : kLivenessCheckMs);
        if (ready < 0 && errno == EINTR) continue;
        if (ready > 0) {
            char chunk[4096];
            const ssize_t n = read(fromPeer_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n > 0) {
                pending_.append(chunk, static_cast<size_t>(n));
                continue;
            }
        }
        if (ready != 0 || gone) {
            Exited();
            return Failure(end_.empty() ? "the peer exited without answering"
                                        : "the peer exited without answering (" + end_ + ")");
        }
        gone = Exited();
    }
}

nlohmann::json PeerProcess::Ask(const nlohmann::json& request) {
    if (!WriteAll(toPeer_, request.dump() + "\n")) return Failure("the peer is not reading its input");
    return ReadLine();
}

}  // namespace atbx::cli::bench
