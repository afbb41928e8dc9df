// Runs an operation's rules stage by stage. Within a stage every applicable rule runs and every violation is
// reported; the next stage runs only when the stage passed.
#ifndef ATBX_RULES_VALIDATOR_H
#define ATBX_RULES_VALIDATOR_H

#include <span>
#include <vector>

#include "rules/call_subject.h"
#include "rules/common_rules.h"
#include "rules/rule.h"

namespace atbx::rules {

template <class Subject>
void CheckStage(Stage stage, std::span<const Rule<Subject>> own, const Subject& subject,
                std::vector<Violation>* violations) {
    const auto run = [&](const auto& rule) {
        if (rule.info.stage != stage || !rule.info.profiles.Contains(subject.platform)) return;
        if (Verdict verdict = rule.check(subject)) violations->push_back({&rule.info, std::move(*verdict)});
    };
    for (const Rule<CallSubject>& rule : CommonRules())
        run(rule);
    for (const Rule<Subject>& rule : own)
        run(rule);
}

// Runs stages [first, last], after checking the platform. Before each stage, prepare(stage, subject) may fill
// in what the stage needs (inferred outputs, host values) and return a violation-free status or an error that
// stops validation. Returns the violations of the first failing stage (empty when every stage passed).
template <class Subject, class Prepare>
std::vector<Violation> RunStages(Stage first, Stage last, std::span<const Rule<Subject>> own,
                                 Subject& subject, Prepare&& prepare) {
    std::vector<Violation> violations;
    if (Verdict verdict = PlatformRule().check(subject)) {
        violations.push_back({&PlatformRule().info, std::move(*verdict)});
        return violations;
    }
    for (int s = static_cast<int>(first); s <= static_cast<int>(last); ++s) {
        const auto stage = static_cast<Stage>(s);
        prepare(stage, subject);
        CheckStage(stage, own, static_cast<const Subject&>(subject), &violations);
        if (!violations.empty()) break;
    }
    return violations;
}

}  // namespace atbx::rules

#endif  // ATBX_RULES_VALIDATOR_H
