/* options_gas.h: --checkpoint gas: the global store's parameters from the options, and their
 * check against the disk before any allocation (options_gas.c). */
#ifndef CC_OPTIONS_GAS_H
#define CC_OPTIONS_GAS_H

#include "cc_gas.h"
#include "options.h"

/* The store's parameters from the --gas-* options, --io-fallback and --durable. */
void cc_options_gas_params(const cc_options *opts, cc_gas_params *gp);
/* Bytes one rank puts into the store: the per-rank file of the largest solver state. */
int64_t cc_options_gas_state_bytes(int64_t n_nodes);
/* Page size, DRAM budget, O_DIRECT of the checkpoint directory and capacity against an estimate
 * of the state (collective; called by cc_options_validate with --checkpoint gas). */
CC_WUR cc_err cc_options_gas_validate(const cc_options *opts, MPI_Comm comm);

#endif
