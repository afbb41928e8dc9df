// atbx: ATB's attention operations (PagedAttention, SelfAttention, ReshapeAndCache) on ordinary machines.
#ifndef ATBX_ATBX_H
#define ATBX_ATBX_H

#include "atbx/context.h"
#include "atbx/infer_op_params.h"
#include "atbx/operation.h"
#include "atbx/platform.h"
#include "atbx/status.h"
#include "atbx/types.h"
#include "atbx/version.h"

#endif  // ATBX_ATBX_H
