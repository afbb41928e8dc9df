// Status: ATB's error codes, plus the id of the rule that failed and a message saying what was expected and
// what was given. A Status converts to atbx::ErrorType, so `if (st != NO_ERROR)` reads as it does with ATB.
#ifndef ATBX_STATUS_H
#define ATBX_STATUS_H

#include <string>

namespace atbx {

// ATB's ErrorType, same names, same values.
enum ErrorType : int {
    NO_ERROR = 0,
    ERROR_INVALID_PARAM,
    ERROR_INVALID_GRAPH,
    ERROR_INTERNAL_ERROR,
    ERROR_RT_FAIL,
    ERROR_INVALID_IN_TENSOR_NUM,
    ERROR_INVALID_TENSOR_DTYPE,
    ERROR_INVALID_TENSOR_FORMAT,
    ERROR_INVALID_TENSOR_DIM,
    ERROR_INVALID_TENSOR_SIZE,
    ERROR_OPERATION_NULL_RUNNER,
    ERROR_GRAPH_INFERSHAPE_FUNC_FAIL,
    ERROR_CANN_ERROR,
    ERROR_INVALID_TENSOR_INI_MATCH,
    ERROR_INVALID_TENSOR_ADDR,
    ERROR_INVALID_TENSOR_NUM,
    ERROR_INVALID_TENSOR_DIM_NUM,
    ERROR_INVALID_SINGLE_OPERATION_PARAM,
    ERROR_GRAPH_NODE_RESHAPE_FUNC_FAIL,
    ERROR_INVALID_GRAPH_NODE_CHUNK,
    ERROR_INVALID_CONTEXT_ADDR,
    ERROR_INVALID_STREAM,
    ERROR_INVALID_WORKSPACE_SIZE,
    ERROR_INVALID_WORKSPACE_ADDR,
    ERROR_INVALID_OPERATION_ADDR,
    ERROR_HCCL_FAIL,
    ERROR_OUT_OF_DEVICE_MEMORY,
    ERROR_OUT_OF_HOST_MEMORY,
    ERROR_COMM_EMPTY,
    ERROR_COPY_HOST_MEMORY_FAIL,
};

// "ERROR_INVALID_PARAM"-style name of a code.
const char* ErrorTypeName(ErrorType code);

class [[nodiscard]] Status {
  public:
    Status() = default;
    Status(ErrorType code, std::string rule, std::string message)
        : code_(code), rule_(std::move(rule)), message_(std::move(message)) {}

    static Status Ok() { return Status(); }

    bool ok() const { return code_ == NO_ERROR; }
    ErrorType code() const { return code_; }
    // Stable id of the violated rule ("pa.param.head_num_positive"), empty when ok.
    const std::string& rule() const { return rule_; }
    // What was expected and what was given.
    const std::string& message() const { return message_; }
    // "ERROR_INVALID_PARAM [pa.param.head_num_positive] headNum must be > 0, got 0"
    std::string ToString() const;

    operator ErrorType() const {
        return code_;
    }  // NOLINT(google-explicit-constructor): ATB's Status is an int

  private:
    ErrorType code_ = NO_ERROR;
    std::string rule_;
    std::string message_;
};

}  // namespace atbx

#endif  // ATBX_STATUS_H
