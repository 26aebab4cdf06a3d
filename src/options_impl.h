/* options_impl.h: the option table (options.c) as its readers see it: options_parse.c applies
 * words to it, options_check.c asks which options were given. Private to the options files. */
#ifndef CC_OPTIONS_IMPL_H
#define CC_OPTIONS_IMPL_H

#include "options.h"

typedef enum { OPT_INT, OPT_DOUBLE, OPT_STRING, OPT_CHOICE, OPT_SIZE, OPT_FLAG } opt_type;

/* Where an OPT_CHOICE option takes its names from: the registries of solvers/ and io/ (and two
 * lists of the driver's own). The option holds the index of the name chosen (an enum value). */
typedef enum {
  CHOICES_NONE,
  CHOICES_PARTITION,    /* cc_partition_kind */
  CHOICES_SOLVER,       /* cc_krylov_list, or CC_CHOICE_ALL */
  CHOICES_REDUCTION,    /* cc_reduction_list (cc_reduction_mode), or CC_CHOICE_ALL */
  CHOICES_PROGRESS,     /* cc_progress_list (cc_progress_mode) */
  CHOICES_PRECOND,      /* cc_precond_list */
  CHOICES_ORDERING,     /* cc_ordering_list */
  CHOICES_CHECKPOINT,   /* cc_io_backend_name() (built backends only), or CC_CHOICE_NONE */
  CHOICES_TIMING,       /* CC_TIMING_OFF, CC_TIMING_ON */
  CHOICES_OVERLAP,      /* CC_HALO_OVERLAP_OFF, CC_HALO_OVERLAP_ON */
  CHOICES_LEVELS,       /* CC_LEVEL_ORDER_OFF, CC_LEVEL_ORDER_ON */
  CHOICES_PRECISION,    /* cc_precision_list (cc_precision) */
  CHOICES_SSTEP_BASIS,  /* cc_sstep_basis_list (cc_sstep_basis) */
  CHOICES_ASDD_RESIDUAL, /* CC_ASDD_RESIDUAL_FUSED, CC_ASDD_RESIDUAL_FULL */
  CHOICES_OVERLAP_PROBE  /* CC_OVERLAP_PROBE_OFF, CC_OVERLAP_PROBE_ON */
} choice_list;

/* "Applies to", beyond the variants: what else the run needs for the option to have an effect.
 * An option given (options file, CUBECG_OPTIONS, command line) that has none in the chosen
 * configuration is refused naming what it needs (options_check.c). */
typedef enum {
  NEEDS_NOTHING,
  NEEDS_CHECKPOINT,            /* --checkpoint BACKEND: checkpoints are written */
  NEEDS_CHECKPOINT_OR_RESTART, /* checkpoints written or read (--restart) */
  NEEDS_GAS_OR_RESTART,        /* --checkpoint gas, or a restart (which may read gas) */
  NEEDS_LOW_PRECISION,         /* --precond-precision single|half */
  NEEDS_ASDD_RESIDUAL,         /* --precond asdd with --asdd-iters >= 2 (an inner residual) */
  NEEDS_EXPORT_SOLUTION,       /* --export-solution FILE */
  NEEDS_TRACE,                 /* --trace DIR */
  NEEDS_COLORED_ORDERING,      /* --ordering mc|cm-rcm (the orderings that take K colors) */
  NEEDS_ASDD,                  /* --precond asdd */
  NEEDS_LEVEL_ORDER            /* --ordering cm-rcm with --level-order on */
} opt_needs;

/* The run's settings: the options that define the computation. A checkpoint's manifest records
 * each one that applies ("settings"); --restart DIR takes each one left at its default from there
 * and refuses one given with another value (options_settings.c). A decomposition setting may
 * differ (another partition: the solver rebuilds its recurrences from x, restart_rebuilt) and is
 * taken only on the rank count that wrote the checkpoint. */
typedef enum { SETTING_NO, SETTING_FIXED, SETTING_DECOMPOSITION } opt_setting;

typedef struct {
  const char *name;
  opt_type type;
  size_t offset;
  const char *default_value; /* parsed like user input at start-up */
  choice_list choices;       /* OPT_CHOICE only */
  const char *help;
  /* applies to: the variants it changes ("plcg sstep"; NULL = every one) and what else it needs */
  const char *variants;
  opt_needs needs;
  opt_setting setting;
} opt_spec;

extern const opt_spec cc_option_table[];
extern const int cc_option_count;

/* Where a value came from (the report's "parameter_sources"); later sources win. ORIGIN_CHECKPOINT:
 * a setting left at its default and taken from the --restart checkpoint's manifest. */
enum { ORIGIN_DEFAULT, ORIGIN_FILE, ORIGIN_ENV, ORIGIN_CMDLINE, ORIGIN_CHECKPOINT };

/* "a|b|c" of a choice list, for messages and --help. Returns the length the whole text needs:
 * cc_options_parse refuses a registry whose names do not fit (never a silent cut). */
#define CC_CHOICES_TEXT_MAX 256
size_t cc_option_choice_names(choice_list list, char *out, size_t size);
/* The option named by key[0..length), NULL if none. */
const opt_spec *cc_option_find(const char *key, size_t length);
/* Parse text into the option's field of opts; messages start with where ("FILE:LINE: ", ...). */
CC_WUR cc_err cc_option_set(const opt_spec *spec, const char *text, const char *where,
                            cc_options *opts);
/* Whether spec's value came from the user (options file, CUBECG_OPTIONS, command line). */
int cc_option_from_user(const cc_options *opts, const opt_spec *spec);
/* Where spec's value came from, for messages: " (options file F:LINE)", " (CUBECG_OPTIONS)",
 * " (command line)", " (the --restart checkpoint's manifest)", "" for a default. One of four
 * buffers a call: up to four in one message. */
const char *cc_option_source(const cc_options *opts, const opt_spec *spec);
/* spec's value in opts as the parser reads it back (choice names, "auto", doubles with %.17g). */
void cc_option_value_text(const opt_spec *spec, const cc_options *opts, char *out, size_t size);
/* Whether spec has an effect in the configuration of opts (at least one chosen variant); if not,
 * why gets "applies to --solver plcg (got pcg)" or "has no effect without --checkpoint BACKEND". */
int cc_option_applies(const opt_spec *spec, const cc_options *opts, char *why, size_t size);

#endif
