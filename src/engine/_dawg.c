/* Building a lexicon's DAWG in C: the same bytes as engine.lexicon's pure-Python build.
 *
 * build_lexicon(words, weights) takes the folded words, sorted and distinct, one per line
 * (A-Z only), and the 26 multiset weights of engine.lexicon; it returns (nodes, edges,
 * payload), the payload being exactly what `Lexicon.to_bytes` writes after its header. It
 * follows the Python build step by step (Daciuk's incremental minimisation, the same node
 * numbering, the same depth-first order), so that a cache is the same file whichever built
 * it; the tests compare the two byte for byte.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_dawg.h"

#define FILTER_MIN_BITS 10
#define FILTER_MAX_BITS 26

static const uint64_t PROBES[3] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full,
                                   0x165667B19E3779F9ull};

typedef struct {
    uint32_t id;
    uint8_t terminal;
    uint8_t n;
    uint8_t letter[26];
    uint32_t target[26];
} PathNode;

typedef struct {
    /* committed (minimised) nodes, by commit index */
    uint32_t *orig, *start;
    uint8_t *terminal, *count;
    size_t n, cap;
    /* their edges */
    uint8_t *letters;
    uint32_t *targets;
    size_t edges, edge_cap;
    /* original id -> commit index */
    uint32_t *index_of;
    size_t ids, id_cap;
    /* the register: commit indexes, open addressing, 0 = empty (index + 1 stored) */
    uint32_t *table;
    size_t table_size, registered;
} Builder;

static int grow(void **p, size_t *cap, size_t need, size_t item)
{
    if (need <= *cap)
        return 1;
    size_t more = *cap ? *cap : 1024;
    while (more < need)
        more *= 2;
    void *q = realloc(*p, more * item);
    if (!q)
        return 0;
    *p = q;
    *cap = more;
    return 1;
}

static uint64_t hash_node(uint8_t terminal, const uint8_t *letters, const uint32_t *targets,
                          int n)
{
    uint64_t h = 1469598103934665603ull ^ terminal;
    for (int i = 0; i < n; i++) {
        h = (h ^ letters[i]) * 1099511628211ull;
        h = (h ^ targets[i]) * 1099511628211ull;
    }
    return h ^ (h >> 29);
}

static int same_node(const Builder *b, uint32_t c, const PathNode *p)
{
    if (b->terminal[c] != p->terminal || b->count[c] != p->n)
        return 0;
    if (!p->n)
        return 1;
    return memcmp(b->letters + b->start[c], p->letter, p->n) == 0 &&
           memcmp(b->targets + b->start[c], p->target, p->n * sizeof(uint32_t)) == 0;
}

static int set_index(Builder *b, uint32_t id, uint32_t c)
{
    if (!grow((void **)&b->index_of, &b->id_cap, (size_t)id + 1, sizeof(uint32_t)))
        return 0;
    b->index_of[id] = c;
    return 1;
}

/* Store a finished node; its commit index, or -1 when out of memory. */
static int64_t commit(Builder *b, const PathNode *p)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        uint32_t *orig = realloc(b->orig, cap * sizeof(uint32_t));
        if (orig)
            b->orig = orig;
        uint32_t *start = realloc(b->start, cap * sizeof(uint32_t));
        if (start)
            b->start = start;
        uint8_t *terminal = realloc(b->terminal, cap);
        if (terminal)
            b->terminal = terminal;
        uint8_t *count = realloc(b->count, cap);
        if (count)
            b->count = count;
        if (!orig || !start || !terminal || !count)
            return -1;
        b->cap = cap;
    }
    if (b->edges + p->n > b->edge_cap) {
        size_t cap = b->edge_cap ? 2 * b->edge_cap : 4096;
        while (cap < b->edges + p->n)
            cap *= 2;
        uint8_t *letters = realloc(b->letters, cap);
        if (letters)
            b->letters = letters;
        uint32_t *targets = realloc(b->targets, cap * sizeof(uint32_t));
        if (targets)
            b->targets = targets;
        if (!letters || !targets)
            return -1;
        b->edge_cap = cap;
    }
    uint32_t c = (uint32_t)b->n++;
    b->orig[c] = p->id;
    b->start[c] = (uint32_t)b->edges;
    b->terminal[c] = p->terminal;
    b->count[c] = p->n;
    if (p->n) { /* a leaf may come before any edge storage exists */
        memcpy(b->letters + b->edges, p->letter, p->n);
        memcpy(b->targets + b->edges, p->target, p->n * sizeof(uint32_t));
        b->edges += p->n;
    }
    if (!set_index(b, p->id, c))
        return -1;
    return c;
}

static int rehash(Builder *b)
{
    size_t size = b->table_size ? 2 * b->table_size : 1 << 16;
    uint32_t *table = calloc(size, sizeof(uint32_t));
    if (!table)
        return 0;
    for (size_t i = 0; i < b->table_size; i++) {
        uint32_t entry = b->table[i];
        if (!entry)
            continue;
        uint32_t c = entry - 1;
        uint64_t h = hash_node(b->terminal[c], b->letters + b->start[c], b->targets + b->start[c],
                               b->count[c]);
        size_t j = h & (size - 1);
        while (table[j])
            j = (j + 1) & (size - 1);
        table[j] = entry;
    }
    free(b->table);
    b->table = table;
    b->table_size = size;
    return 1;
}

/* The registered node equal to `p` (its original id), or registers `p`; -1 on no memory. */
static int64_t minimise_one(Builder *b, const PathNode *p)
{
    if (2 * (b->registered + 1) > b->table_size && !rehash(b))
        return -1;
    uint64_t h = hash_node(p->terminal, p->letter, p->target, p->n);
    size_t j = h & (b->table_size - 1);
    while (b->table[j]) {
        uint32_t c = b->table[j] - 1;
        if (same_node(b, c, p))
            return b->orig[c];
        j = (j + 1) & (b->table_size - 1);
    }
    int64_t c = commit(b, p);
    if (c < 0)
        return -1;
    b->table[j] = (uint32_t)c + 1;
    b->registered++;
    return p->id;
}

/* The path's nodes deeper than `down_to`, deepest first, each replaced in its parent's last
 * edge by its registered equal (or registered): Daciuk's minimise(common), also run with 0
 * once every word is in. 0, or -1 when out of memory. */
static int minimise(Builder *b, PathNode *path, size_t *depth, size_t down_to)
{
    while (*depth > down_to) {
        int64_t id = minimise_one(b, &path[*depth]);
        if (id < 0)
            return -1;
        PathNode *parent = &path[*depth - 1];
        parent->target[parent->n - 1] = (uint32_t)id;
        (*depth)--;
    }
    return 0;
}

static void free_builder(Builder *b)
{
    free(b->orig);
    free(b->start);
    free(b->terminal);
    free(b->count);
    free(b->letters);
    free(b->targets);
    free(b->index_of);
    free(b->table);
}

static int compare_u32(const void *p, const void *q)
{
    uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;
    return a < b ? -1 : a > b;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* For the builder and the kernel alike (_dawg.h). */
int read_weights(PyObject *obj, uint64_t weights[26])
{
    PyObject *seq = PySequence_Fast(obj, "weights: expected 26 integers");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 26) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "weights: expected 26 integers");
        return -1;
    }
    for (int i = 0; i < 26; i++) {
        weights[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (weights[i] == (unsigned long long)-1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

PyObject *build_lexicon(PyObject *module, PyObject *args)
{
    (void)module;
    const char *text;
    Py_ssize_t len;
    PyObject *weights_obj;
    if (!PyArg_ParseTuple(args, "y#O", &text, &len, &weights_obj))
        return NULL;
    uint64_t weights[26];
    if (read_weights(weights_obj, weights) < 0)
        return NULL;

    Builder b = {0};
    PathNode *path = NULL;
    size_t path_cap = 0, depth = 0;
    uint64_t *keys = NULL;
    size_t n_keys = 0, keys_cap = 0;
    uint32_t next_id = 1;
    PyObject *result = NULL;
    uint32_t *order = NULL, *postorder = NULL, *stack_node = NULL, *stack_pos = NULL;
    uint32_t *sorted = NULL;
    uint8_t *seen = NULL;
    const char *why = NULL;

    if (!grow((void **)&path, &path_cap, 1, sizeof(PathNode)))
        goto memory;
    memset(&path[0], 0, sizeof(PathNode));
    const char *previous = NULL;
    Py_ssize_t previous_len = 0, at = 0;
    while (at < len) {
        const char *word = text + at;
        Py_ssize_t n = 0;
        while (at + n < len && word[n] != '\n')
            n++;
        at += n + 1;
        if (n == 0) {
            why = "an empty word";
            goto refuse;
        }
        uint64_t key = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (word[i] < 'A' || word[i] > 'Z') {
                why = "a character outside A-Z";
                goto refuse;
            }
            key += weights[word[i] - 'A'];
        }
        Py_ssize_t common = 0;
        if (previous) {
            while (common < n && common < previous_len && word[common] == previous[common])
                common++;
            int later = common < n && (common == previous_len || word[common] > previous[common]);
            if (!later) {
                why = "words not sorted and distinct";
                goto refuse;
            }
        }
        if (!grow((void **)&keys, &keys_cap, n_keys + 1, sizeof(uint64_t)))
            goto memory;
        keys[n_keys++] = key;
        if (minimise(&b, path, &depth, (size_t)common) < 0)
            goto memory;
        if (!grow((void **)&path, &path_cap, (size_t)n + 1, sizeof(PathNode)))
            goto memory;
        for (Py_ssize_t i = common; i < n; i++) {
            PathNode *node = &path[depth];
            node->letter[node->n] = (uint8_t)(word[i] - 'A');
            node->target[node->n++] = next_id;
            PathNode *child = &path[++depth];
            child->id = next_id++;
            child->terminal = 0;
            child->n = 0;
            if (next_id == 0) {
                why = "too many nodes";
                goto refuse;
            }
        }
        path[depth].terminal = 1;
        previous = word;
        previous_len = n;
    }
    if (minimise(&b, path, &depth, 0) < 0)
        goto memory;
    if (commit(&b, &path[0]) < 0) /* the root, id 0 */
        goto memory;

    /* Parents first: reverse postorder of a depth-first walk, children by rising id. */
    size_t total = b.n;
    seen = calloc(total, 1);
    postorder = malloc(total * sizeof(uint32_t));
    stack_node = malloc(total * sizeof(uint32_t));
    stack_pos = malloc(total * sizeof(uint32_t));
    sorted = malloc(b.edges ? b.edges * sizeof(uint32_t) : sizeof(uint32_t));
    order = malloc(total * sizeof(uint32_t));
    if (!seen || !postorder || !stack_node || !stack_pos || !sorted || !order)
        goto memory;
    for (size_t c = 0; c < total; c++) {
        if (!b.count[c])
            continue;
        memcpy(sorted + b.start[c], b.targets + b.start[c], b.count[c] * sizeof(uint32_t));
        qsort(sorted + b.start[c], b.count[c], sizeof(uint32_t), compare_u32);
    }
    uint32_t root = b.index_of[0];
    size_t top = 0, visited = 0;
    stack_node[top] = root;
    stack_pos[top++] = 0;
    seen[root] = 1;
    while (top) {
        uint32_t c = stack_node[top - 1];
        int pushed = 0;
        while (stack_pos[top - 1] < b.count[c]) {
            uint32_t child = b.index_of[sorted[b.start[c] + stack_pos[top - 1]++]];
            if (!seen[child]) {
                seen[child] = 1;
                stack_node[top] = child;
                stack_pos[top++] = 0;
                pushed = 1;
                break;
            }
        }
        if (!pushed) {
            top--;
            postorder[visited++] = c;
        }
    }
    size_t nodes = visited;
    for (size_t i = 0; i < nodes; i++)
        order[postorder[nodes - 1 - i]] = (uint32_t)i;
    size_t n_edges = 0;
    for (size_t i = 0; i < nodes; i++)
        n_edges += b.count[postorder[nodes - 1 - i]];

    int bits = 0;
    uint64_t want = 64 * (uint64_t)n_keys - 1;
    if (n_keys == 0)
        want = 0;
    while (bits < 64 && (want >> bits))
        bits++;
    if (bits < FILTER_MIN_BITS)
        bits = FILTER_MIN_BITS;
    if (bits > FILTER_MAX_BITS)
        bits = FILTER_MAX_BITS;
    size_t filter_size = (size_t)1 << (bits - 3);
    size_t size = 4 * (nodes + 1) + 14 * nodes + 5 * n_edges + filter_size;
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (!result)
        goto fail;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
    memset(out, 0, size);
    uint8_t *first = out, *terminal = first + 4 * (nodes + 1), *height = terminal + nodes;
    uint8_t *edges = height + nodes, *reach = edges + 4 * nodes, *lengths = reach + 4 * nodes;
    uint8_t *labels = lengths + 4 * nodes, *targets = labels + n_edges;
    uint8_t *filter = targets + 4 * n_edges;
    uint32_t *mask = calloc(nodes, sizeof(uint32_t)), *below = calloc(nodes, sizeof(uint32_t));
    uint32_t *ends = calloc(nodes, sizeof(uint32_t));
    uint8_t *tall = calloc(nodes, 1);
    if (!mask || !below || !ends || !tall) {
        free(mask);
        free(below);
        free(ends);
        free(tall);
        Py_CLEAR(result);
        goto memory;
    }
    size_t e = 0;
    for (size_t i = 0; i < nodes; i++) {
        uint32_t c = postorder[nodes - 1 - i];
        put_u32(first + 4 * i, (uint32_t)e);
        terminal[i] = b.terminal[c];
        for (uint32_t k = 0; k < b.count[c]; k++, e++) {
            labels[e] = b.letters[b.start[c] + k];
            put_u32(targets + 4 * e, order[b.index_of[b.targets[b.start[c] + k]]]);
            mask[i] |= 1u << labels[e];
        }
    }
    put_u32(first + 4 * nodes, (uint32_t)e);
    for (size_t i = nodes; i-- > 0;) {
        uint32_t c = postorder[nodes - 1 - i];
        ends[i] = b.terminal[c];
        for (uint32_t k = 0; k < b.count[c]; k++) {
            uint32_t child = order[b.index_of[b.targets[b.start[c] + k]]];
            below[i] |= below[child];
            int h = tall[child] + 1;
            if (h > 255)
                h = 255;
            if (h > tall[i])
                tall[i] = (uint8_t)h;
            ends[i] |= ends[child] << 1;
        }
        below[i] |= mask[i];
    }
    for (size_t i = 0; i < nodes; i++) {
        height[i] = tall[i];
        put_u32(edges + 4 * i, mask[i]);
        put_u32(reach + 4 * i, below[i]);
        put_u32(lengths + 4 * i, ends[i]);
    }
    free(mask);
    free(below);
    free(ends);
    free(tall);
    for (size_t i = 0; i < n_keys; i++)
        for (int p = 0; p < 3; p++) {
            uint64_t slot = (keys[i] * PROBES[p]) >> (64 - bits);
            filter[slot >> 3] |= (uint8_t)(1u << (slot & 7));
        }
    PyObject *done = Py_BuildValue("(nnnN)", (Py_ssize_t)nodes, (Py_ssize_t)n_edges,
                                   (Py_ssize_t)n_keys, result);
    result = done;
    goto fail; /* the common clean-up */
refuse:
    PyErr_Format(PyExc_ValueError, "words for a lexicon: %s", why);
    goto fail;
memory:
    PyErr_NoMemory();
fail:
    free(path);
    free(keys);
    free(order);
    free(postorder);
    free(stack_node);
    free(stack_pos);
    free(sorted);
    free(seen);
    free_builder(&b);
    return result;
}
