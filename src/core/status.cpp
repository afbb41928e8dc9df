#include "atbx/status.h"

namespace atbx {

const char* ErrorTypeName(ErrorType code) {
    switch (code) {
        case NO_ERROR:
            return "NO_ERROR";
        case ERROR_INVALID_PARAM:
            return "ERROR_INVALID_PARAM";
        case ERROR_INVALID_GRAPH:
            return "ERROR_INVALID_GRAPH";
        case ERROR_INTERNAL_ERROR:
            return "ERROR_INTERNAL_ERROR";
        case ERROR_RT_FAIL:
            return "ERROR_RT_FAIL";
        case ERROR_INVALID_IN_TENSOR_NUM:
            return "ERROR_INVALID_IN_TENSOR_NUM";
        case ERROR_INVALID_TENSOR_DTYPE:
            return "ERROR_INVALID_TENSOR_DTYPE";
        case ERROR_INVALID_TENSOR_FORMAT:
            return "ERROR_INVALID_TENSOR_FORMAT";
        case ERROR_INVALID_TENSOR_DIM:
            return "ERROR_INVALID_TENSOR_DIM";
        case ERROR_INVALID_TENSOR_SIZE:
            return "ERROR_INVALID_TENSOR_SIZE";
        case ERROR_OPERATION_NULL_RUNNER:
            return "ERROR_OPERATION_NULL_RUNNER";
        case ERROR_GRAPH_INFERSHAPE_FUNC_FAIL:
            return "ERROR_GRAPH_INFERSHAPE_FUNC_FAIL";
        case ERROR_CANN_ERROR:
            return "ERROR_CANN_ERROR";
        case ERROR_INVALID_TENSOR_INI_MATCH:
            return "ERROR_INVALID_TENSOR_INI_MATCH";
        case ERROR_INVALID_TENSOR_ADDR:
            return "ERROR_INVALID_TENSOR_ADDR";
        case ERROR_INVALID_TENSOR_NUM:
            return "ERROR_INVALID_TENSOR_NUM";
        case ERROR_INVALID_TENSOR_DIM_NUM:
            return "ERROR_INVALID_TENSOR_DIM_NUM";
        case ERROR_INVALID_SINGLE_OPERATION_PARAM:
            return "ERROR_INVALID_SINGLE_OPERATION_PARAM";
        case ERROR_GRAPH_NODE_RESHAPE_FUNC_FAIL:
            return "ERROR_GRAPH_NODE_RESHAPE_FUNC_FAIL";
        case ERROR_INVALID_GRAPH_NODE_CHUNK:
            return "ERROR_INVALID_GRAPH_NODE_CHUNK";
        case ERROR_INVALID_CONTEXT_ADDR:
            return "ERROR_INVALID_CONTEXT_ADDR";
        case ERROR_INVALID_STREAM:
            return "ERROR_INVALID_STREAM";
        case ERROR_INVALID_WORKSPACE_SIZE:
            return "ERROR_INVALID_WORKSPACE_SIZE";
        case ERROR_INVALID_WORKSPACE_ADDR:
            return "ERROR_INVALID_WORKSPACE_ADDR";
        case ERROR_INVALID_OPERATION_ADDR:
            return "ERROR_INVALID_OPERATION_ADDR";
        case ERROR_HCCL_FAIL:
            return "ERROR_HCCL_FAIL";
        case ERROR_OUT_OF_DEVICE_MEMORY:
            return "ERROR_OUT_OF_DEVICE_MEMORY";
        case ERROR_OUT_OF_HOST_MEMORY:
            return "ERROR_OUT_OF_HOST_MEMORY";
        case ERROR_COMM_EMPTY:
            return "ERROR_COMM_EMPTY";
        case ERROR_COPY_HOST_MEMORY_FAIL:
            return "ERROR_COPY_HOST_MEMORY_FAIL";
    }
    return "ERROR_UNKNOWN";
}

std::string Status::ToString() const {
    if (ok()) return "NO_ERROR";
    std::string text = ErrorTypeName(code_);
    if (!rule_.empty()) text += " [" + rule_ + "]";
    if (!message_.empty()) text += " " + message_;
    return text;
}

}  // namespace atbx
