// atbx: run, check and explain ATB attention calls from case files; print the rule table; run the demo.
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>

#include "commands.h"

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
    if (!executes) return;
    const std::map<std::string, Backend> backends = {
        {"ref", Backend::kReference}, {"cpu", Backend::kCpu}, {"auto", Backend::kAuto}};
    command->add_option("--backend", options->backend, "ref (float64 reference), cpu, or auto (default)")
        ->transform(CLI::CheckedTransformer(backends, CLI::ignore_case));
    command->add_option("--threads", options->threads, "threads (default: all)")
        ->check(CLI::NonNegativeNumber);
    command->add_option("--out", options->outDir,
                        "directory for the outputs (default: next to the case file)");
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"atbx: ATB's attention operations (PagedAttention, SelfAttention, ReshapeAndCache) on CPUs"};
    app.require_subcommand(1);

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
    demo->add_option("--threads", demoOptions.threads, "threads (default: all)")
        ->check(CLI::NonNegativeNumber);
    demo->add_option("--iterations", demoOptions.iterations, "timed runs (default 5)")
        ->check(CLI::PositiveNumber);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return atbx::cli::kExitUsage;
    }
    if (run->parsed()) return atbx::cli::RunCommand(runOptions);
    if (check->parsed()) return atbx::cli::CheckCommand(checkOptions);
    if (rules->parsed()) return atbx::cli::RulesCommand(markdown);
    if (paths->parsed()) return atbx::cli::PathsCommand();
    return atbx::cli::DemoCommand(demoOptions);
}
