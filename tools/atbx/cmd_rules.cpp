#include <iostream>

#include "commands.h"
#include "ops/rule_table.h"

namespace atbx::cli {

int RulesCommand(bool markdown) {
    std::cout << (markdown ? ops::RuleTableMarkdown() : ops::RuleTableText());
    return kExitOk;
}

}  // namespace atbx::cli
