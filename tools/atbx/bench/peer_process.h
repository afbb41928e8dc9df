// A peer benchmark (a Python script timing another library) kept running beside atbx for the whole run:
// atbx sends it one row at a time as a JSON line on its stdin and reads one JSON line back, so the peer's
// timing of a row follows atbx's within seconds, under the same load, and the peer pays its start-up
// (importing PyTorch or OpenVINO) once.
#ifndef ATBX_TOOLS_ATBX_BENCH_PEER_PROCESS_H
#define ATBX_TOOLS_ATBX_BENCH_PEER_PROCESS_H

#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace atbx::cli::bench {

class PeerProcess {
  public:
    // Starts `argv` and reads its first line (the peer's self-description); nothing and an error message when
    // it does not start or does not answer with a JSON object.
    static std::unique_ptr<PeerProcess> Start(const std::vector<std::string>& argv, std::string* error);
    ~PeerProcess();
    PeerProcess(const PeerProcess&) = delete;
    PeerProcess& operator=(const PeerProcess&) = delete;

    const nlohmann::json& hello() const { return hello_; }
    // Sends one request line and returns the answer line; an object with "error" when the peer fails.
    nlohmann::json Ask(const nlohmann::json& request);

  private:
    PeerProcess(pid_t pid, int toPeer, int fromPeer) : pid_(pid), toPeer_(toPeer), fromPeer_(fromPeer) {}
    nlohmann::json ReadLine();
    // Whether the peer has exited (reaped here); `end_` then says how.
    bool Exited();

    pid_t pid_;
    int toPeer_;
    int fromPeer_;
    std::string pending_;  // what the peer wrote after the last line read
    bool exited_ = false;
    std::string end_;
    nlohmann::json hello_;
};

}  // namespace atbx::cli::bench

#endif  // ATBX_TOOLS_ATBX_BENCH_PEER_PROCESS_H
