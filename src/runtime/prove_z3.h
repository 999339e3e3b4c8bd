/* prove_z3.h - Z3's C API as the prover calls it: through a table of
 * function pointers that prove_z3_load fills from the library it opens
 * at the first proof asked for (note [Z3 loaded lazily] in prove_z3.c).
 * The prover's files include this header instead of <z3.h> and keep
 * Z3's spelling: each Z3_name they call is a macro for the table's
 * field.  graft is not linked against libz3, so a function called but
 * not mapped here fails the link, and one mapped but not listed in
 * PROVE_Z3_FUNCTIONS fails the compile. */
#ifndef GRAFT_PROVE_Z3_H
#define GRAFT_PROVE_Z3_H

#include <stdbool.h>

#include <z3.h>

#include "util.h"

/* Every Z3 function the prover calls, without its "Z3_" prefix. */
#define PROVE_Z3_FUNCTIONS(F) \
    F(ast_to_string) F(del_config) F(del_context) F(finalize_memory) \
    F(get_algebraic_number_lower) F(get_error_msg) F(get_numeral_double) F(get_numeral_string) \
    F(get_numeral_uint64) F(is_algebraic_number) F(is_numeral_ast) F(mk_add) F(mk_and) \
    F(mk_app) F(mk_config) F(mk_const) F(mk_context) F(mk_div) F(mk_eq) F(mk_false) \
    F(mk_fpa_add) F(mk_fpa_div) F(mk_fpa_eq) F(mk_fpa_geq) F(mk_fpa_gt) F(mk_fpa_is_nan) \
    F(mk_fpa_leq) F(mk_fpa_lt) F(mk_fpa_mul) F(mk_fpa_neg) F(mk_fpa_numeral_float) \
    F(mk_fpa_rne) F(mk_fpa_sort_32) F(mk_fpa_sqrt) F(mk_fpa_sub) F(mk_fpa_to_ieee_bv) \
    F(mk_func_decl) F(mk_ge) F(mk_gt) F(mk_implies) F(mk_ite) F(mk_le) F(mk_lt) F(mk_mul) \
    F(mk_not) F(mk_numeral) F(mk_or) F(mk_params) F(mk_real_sort) F(mk_solver) \
    F(mk_string_symbol) F(mk_sub) F(mk_unary_minus) F(model_dec_ref) F(model_eval) \
    F(model_inc_ref) F(params_dec_ref) F(params_inc_ref) F(params_set_uint) \
    F(set_error_handler) F(set_param_value) F(solver_assert) F(solver_check) F(solver_dec_ref) \
    F(solver_get_model) F(solver_get_reason_unknown) F(solver_inc_ref) F(solver_pop) \
    F(solver_push) F(solver_set_params)

/* One pointer per function, of the type z3.h declares it with (the
 * macros below are defined after this, so Z3_##name is still Z3's). */
typedef struct ProveZ3 {
#define PROVE_Z3_FIELD(name) __typeof__(Z3_##name) *name;
    PROVE_Z3_FUNCTIONS(PROVE_Z3_FIELD)
#undef PROVE_Z3_FIELD
} ProveZ3;

extern ProveZ3 prove_z3;

/* Opens Z3's library and fills prove_z3, once: true when it is loaded
 * (now or before); false, the reason in *why, when the library cannot
 * be opened or lacks a function. */
bool prove_z3_load(StrBuf *why);
/* Frees what Z3 keeps between contexts and closes the library, when
 * loaded. */
void prove_z3_unload(void);

#define Z3_ast_to_string (prove_z3.ast_to_string)
#define Z3_del_config (prove_z3.del_config)
#define Z3_del_context (prove_z3.del_context)
#define Z3_finalize_memory (prove_z3.finalize_memory)
#define Z3_get_algebraic_number_lower (prove_z3.get_algebraic_number_lower)
#define Z3_get_error_msg (prove_z3.get_error_msg)
#define Z3_get_numeral_double (prove_z3.get_numeral_double)
#define Z3_get_numeral_string (prove_z3.get_numeral_string)
#define Z3_get_numeral_uint64 (prove_z3.get_numeral_uint64)
#define Z3_is_algebraic_number (prove_z3.is_algebraic_number)
#define Z3_is_numeral_ast (prove_z3.is_numeral_ast)
#define Z3_mk_add (prove_z3.mk_add)
#define Z3_mk_and (prove_z3.mk_and)
#define Z3_mk_app (prove_z3.mk_app)
#define Z3_mk_config (prove_z3.mk_config)
#define Z3_mk_const (prove_z3.mk_const)
#define Z3_mk_context (prove_z3.mk_context)
#define Z3_mk_div (prove_z3.mk_div)
#define Z3_mk_eq (prove_z3.mk_eq)
#define Z3_mk_false (prove_z3.mk_false)
#define Z3_mk_fpa_add (prove_z3.mk_fpa_add)
#define Z3_mk_fpa_div (prove_z3.mk_fpa_div)
#define Z3_mk_fpa_eq (prove_z3.mk_fpa_eq)
#define Z3_mk_fpa_geq (prove_z3.mk_fpa_geq)
#define Z3_mk_fpa_gt (prove_z3.mk_fpa_gt)
#define Z3_mk_fpa_is_nan (prove_z3.mk_fpa_is_nan)
#define Z3_mk_fpa_leq (prove_z3.mk_fpa_leq)
#define Z3_mk_fpa_lt (prove_z3.mk_fpa_lt)
#define Z3_mk_fpa_mul (prove_z3.mk_fpa_mul)
#define Z3_mk_fpa_neg (prove_z3.mk_fpa_neg)
#define Z3_mk_fpa_numeral_float (prove_z3.mk_fpa_numeral_float)
#define Z3_mk_fpa_rne (prove_z3.mk_fpa_rne)
#define Z3_mk_fpa_sort_32 (prove_z3.mk_fpa_sort_32)
#define Z3_mk_fpa_sqrt (prove_z3.mk_fpa_sqrt)
#define Z3_mk_fpa_sub (prove_z3.mk_fpa_sub)
#define Z3_mk_fpa_to_ieee_bv (prove_z3.mk_fpa_to_ieee_bv)
#define Z3_mk_func_decl (prove_z3.mk_func_decl)
#define Z3_mk_ge (prove_z3.mk_ge)
#define Z3_mk_gt (prove_z3.mk_gt)
#define Z3_mk_implies (prove_z3.mk_implies)
#define Z3_mk_ite (prove_z3.mk_ite)
#define Z3_mk_le (prove_z3.mk_le)
#define Z3_mk_lt (prove_z3.mk_lt)
#define Z3_mk_mul (prove_z3.mk_mul)
#define Z3_mk_not (prove_z3.mk_not)
#define Z3_mk_numeral (prove_z3.mk_numeral)
#define Z3_mk_or (prove_z3.mk_or)
#define Z3_mk_params (prove_z3.mk_params)
#define Z3_mk_real_sort (prove_z3.mk_real_sort)
#define Z3_mk_solver (prove_z3.mk_solver)
#define Z3_mk_string_symbol (prove_z3.mk_string_symbol)
#define Z3_mk_sub (prove_z3.mk_sub)
#define Z3_mk_unary_minus (prove_z3.mk_unary_minus)
#define Z3_model_dec_ref (prove_z3.model_dec_ref)
#define Z3_model_eval (prove_z3.model_eval)
#define Z3_model_inc_ref (prove_z3.model_inc_ref)
#define Z3_params_dec_ref (prove_z3.params_dec_ref)
#define Z3_params_inc_ref (prove_z3.params_inc_ref)
#define Z3_params_set_uint (prove_z3.params_set_uint)
#define Z3_set_error_handler (prove_z3.set_error_handler)
#define Z3_set_param_value (prove_z3.set_param_value)
#define Z3_solver_assert (prove_z3.solver_assert)
#define Z3_solver_check (prove_z3.solver_check)
#define Z3_solver_dec_ref (prove_z3.solver_dec_ref)
#define Z3_solver_get_model (prove_z3.solver_get_model)
#define Z3_solver_get_reason_unknown (prove_z3.solver_get_reason_unknown)
#define Z3_solver_inc_ref (prove_z3.solver_inc_ref)
#define Z3_solver_pop (prove_z3.solver_pop)
#define Z3_solver_push (prove_z3.solver_push)
#define Z3_solver_set_params (prove_z3.solver_set_params)

#endif
