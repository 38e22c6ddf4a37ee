/* What _dawg.c gives _kernel.c: both build one extension module (engine._kernel), and the
 * kernel's constructor reads the lexicon's weights as the builder does. Declared here once, so
 * that the compiler checks the definitions against the calls.
 */
#ifndef ARBITRU_DAWG_H
#define ARBITRU_DAWG_H

#include <Python.h>
#include <stdint.h>

/* The 26 multiset weights of engine.lexicon; 0, or -1 with a Python exception set. */
int read_weights(PyObject *obj, uint64_t weights[26]);

/* build_lexicon(words, weights): a lexicon's cache bytes built from its sorted words. */
PyObject *build_lexicon(PyObject *module, PyObject *args);

#endif
