#include "bench/peer_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace atbx::cli::bench {
namespace {

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
    std::unique_ptr<PeerProcess> peer(new PeerProcess(pid, toChild[1], fdopen(fromChild[0], "r")));
    peer->hello_ = peer->ReadLine();
    if (peer->hello_.contains("error")) {
        *error = peer->hello_["error"].get<std::string>();
        return nullptr;
    }
    return peer;
}

PeerProcess::~PeerProcess() {
    close(toPeer_);  // end of input: the peer exits
    if (fromPeer_ != nullptr) fclose(fromPeer_);
    int status = 0;
    waitpid(pid_, &status, 0);
}

nlohmann::json PeerProcess::ReadLine() {
    if (fromPeer_ == nullptr) return Failure("the peer's output could not be opened");
    char* line = nullptr;
    size_t capacity = 0;
    const ssize_t length = getline(&line, &capacity, fromPeer_);
    std::string text = length > 0 ? std::string(line, static_cast<size_t>(length)) : std::string();
    free(line);
    if (text.empty()) return Failure("the peer exited without answering");
    nlohmann::json answer = nlohmann::json::parse(text, nullptr, false);
    if (!answer.is_object()) return Failure("the peer answered something other than a JSON object: " + text);
    return answer;
}

nlohmann::json PeerProcess::Ask(const nlohmann::json& request) {
    if (!WriteAll(toPeer_, request.dump() + "\n")) return Failure("the peer is not reading its input");
    return ReadLine();
}

}  // namespace atbx::cli::bench
