// atbx: run, check and explain ATB attention calls from case files; print the rule table; run the demo.
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>

#include "commands.h"
#include "io/user_text.h"

namespace {

using atbx::Backend;
using atbx::Platform;

std::map<std::string, Platform> PlatformChoices() {
    std::map<std::string, Platform> choices;
    for (int i = 0; i < atbx::kPlatformCount; ++i) {
        const auto platform = static_cast<Platform>(i);
        choices.emplace(atbx::PlatformName(platform), platform);
    }
    return choices;
}

void AddCaseOptions(CLI::App* command, atbx::cli::CaseOptions* options, bool executes) {
    command->add_option("case", options->casePath, "case file (JSON)")->required();
    command
        ->add_option_function<Platform>(
            "--platform", [options](const Platform& p) { options->platform = p; },
            "platform profile whose rules apply (default: the case file's, else atlas-a2)")
        ->transform(CLI::CheckedTransformer(PlatformChoices(), CLI::ignore_case));
    command->add_flag("--allow-outside", options->allowOutside,
                      "read input files outside the case file's folder (absolute paths, .., symlinks)");
    if (!executes) return;
    const std::map<std::string, Backend> backends = {
        {"ref", Backend::kReference}, {"cpu", Backend::kCpu}, {"auto", Backend::kAuto}};
    command->add_option("--backend", options->backend, "ref (float64 reference), cpu, or auto (default)")
        ->transform(CLI::CheckedTransformer(backends, CLI::ignore_case));
    command->add_option("--threads", options->threads, "threads, 1 to 1024 (default 0: all cores)")
        ->check(CLI::Range(0, atbx::cli::kMaxThreads));
    command->add_option("--out", options->outDir,
                        "directory for the outputs (default: next to the case file)");
}

// `atbx bench decode`, `prefill` and `features` share their options.
void AddBenchOptions(CLI::App* command, atbx::cli::BenchOptions* o) {
    const std::map<std::string, Backend> backends = {
        {"ref", Backend::kReference}, {"cpu", Backend::kCpu}, {"auto", Backend::kAuto}};
    command->add_option("--backend", o->backend, "ref, cpu or auto (default)")
        ->transform(CLI::CheckedTransformer(backends, CLI::ignore_case));
    command->add_option("--threads", o->threads, "threads for atbx, the ceilings and the peer (default: all)")
        ->check(CLI::NonNegativeNumber);
    command->add_flag("--quick", o->quick, "one row per shape family and dtype (under two minutes)");
    command->add_flag("--smoke", o->smoke, "tiny shapes of every kind (seconds; for tests)");
    command->add_option("--filter", o->filter,
                        "run only rows whose \"op shape dtype cold|warm\" matches (regex)");
    command->add_option("--peer", o->peer, "run a peer on the same shapes, right after each row")
        ->check(CLI::IsMember({"torch", "openvino"}));
    command
        ->add_option("--peer-script", o->peerScript, "the peer script (default: tools/bench/<peer>_peer.py)")
        ->check(CLI::ExistingFile);
    command->add_option("--peer-python", o->peerPython,
                        "the Python that runs the peer (default: the build's for torch, .venv-openvino's)");
    command->add_option("--json", o->jsonPath,
                        "write the machine's ceilings and every row to this JSON file");
    command->add_option("--memory-gib", o->memoryGib, "memory a row may allocate (default: 1/3 of RAM, <= 8)")
        ->check(CLI::PositiveNumber);
    command
        ->add_option("--cold-mib", o->coldMib, "KV a cold row rotates over (default: 4 x last-level cache)")
        ->check(CLI::PositiveNumber);
    command
        ->add_option("--ceiling-mib", o->ceilingMib,
                     "buffer of the bandwidth ceilings (default: 4 x LLC, >= 1 GiB)")
        ->check(CLI::PositiveNumber);
    command->add_flag("--huge-pages", o->hugePages,
                      "ask Linux for 2 MiB pages for the rows' tensors and the bandwidth buffers");
    command
        ->add_option("--row-seconds", o->rowSeconds,
                     "time spent timing each row (default 1; 0.3 with --quick)")
        ->check(CLI::PositiveNumber);
    command
        ->add_option("--max-call-seconds", o->maxCallSeconds,
                     "skip rows estimated slower than this per call (default 20)")
        ->check(CLI::PositiveNumber);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"atbx: ATB's attention operations (PagedAttention, SelfAttention, ReshapeAndCache) on CPUs"};
    app.require_subcommand(1);
    // One line per error, with whatever the user typed escaped.
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return "error: " + atbx::io::Printable(e.what(), 300) + " (atbx --help for usage)\n";
    });

    atbx::cli::CaseOptions runOptions;
    CLI::App* run = app.add_subcommand("run", "validate, execute and write the outputs of a case file");
    AddCaseOptions(run, &runOptions, true);

    atbx::cli::CaseOptions checkOptions;
    CLI::App* check = app.add_subcommand("check", "validate a case file and print every violated rule");
    AddCaseOptions(check, &checkOptions, false);

    bool markdown = false;
    CLI::App* rules = app.add_subcommand("rules", "print the rule table");
    rules->add_flag("--markdown", markdown, "print docs/constraints.md");

    CLI::App* paths = app.add_subcommand("paths", "list the CPU kernel paths and which run on this CPU");

    atbx::cli::DemoOptions demoOptions;
    CLI::App* demo =
        app.add_subcommand("demo", "run a PagedAttention decode and check it against the reference");
    const std::map<std::string, Backend> backends = {
        {"ref", Backend::kReference}, {"cpu", Backend::kCpu}, {"auto", Backend::kAuto}};
    demo->add_option("--backend", demoOptions.backend, "ref, cpu or auto (default)")
        ->transform(CLI::CheckedTransformer(backends, CLI::ignore_case));
    demo->add_option("--threads", demoOptions.threads, "threads, 1 to 1024 (default 0: all cores)")
        ->check(CLI::Range(0, atbx::cli::kMaxThreads));
    demo->add_option("--iterations", demoOptions.iterations, "timed runs, 1 to 100000 (default 5)")
        ->check(CLI::Range(1, 100000));

    atbx::cli::BenchOptions benchOptions;
    CLI::App* benchCommand =
        app.add_subcommand("bench", "time atbx on real model shapes beside the machine's ceilings");
    benchCommand->require_subcommand(1);
    const std::pair<const char*, const char*> workloads[] = {
        {"decode", "PagedAttention decode steps"},
        {"prefill", "SelfAttention prefills and ReshapeAndCache writes"},
        {"features",
         "each PagedAttention feature on one decode shape, its time per KV byte against the main path"}};
    for (const auto& entry : workloads) {
        const char* workload = entry.first;
        CLI::App* sub = benchCommand->add_subcommand(workload, entry.second);
        AddBenchOptions(sub, &benchOptions);
        sub->callback([&benchOptions, workload] { benchOptions.workload = workload; });
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return atbx::cli::kExitUsage;
    }
    try {
        if (run->parsed()) return atbx::cli::RunCommand(runOptions);
        if (check->parsed()) return atbx::cli::CheckCommand(checkOptions);
        if (rules->parsed()) return atbx::cli::RulesCommand(markdown);
        if (benchCommand->parsed()) return atbx::cli::BenchCommand(benchOptions);
        if (paths->parsed()) return atbx::cli::PathsCommand();
        return atbx::cli::DemoCommand(demoOptions);
    } catch (const std::exception& e) {
        // Out of memory, say: one line and exit 1, never an abort.
        std::cerr << "error: " << e.what() << '\n';
        return atbx::cli::kExitUsage;
    }
}
