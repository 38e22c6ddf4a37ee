/* The compiled move generator: the per-position path of engine.movegen, in C.
 *
 * It reads the lexicon's cache bytes (engine.lexicon, format version 5) once, into flat
 * per-node arrays, and for each position computes the lines' cross-checks and anchors, plans
 * the starts, and runs Appel and Jacobson's search over the DAWG with the same conventions as
 * the pure-Python generator (which stays the reference): a move is reported once, a one-tile
 * move down only when it forms no word across, letters without tiles only as jokers.
 *
 * Pruned searches (the top, the best N, every move from a score up) bound what a partial word
 * can still score from per-square tables (word multipliers, board tiles reached, cross words,
 * the rack's best values paired with the best premiums) and skip whatever cannot reach the
 * threshold; a bingo counts only where the lexicon's multiset filter says the rack (or, when it
 * holds more tiles than the bingo's number, some that many of them), with the board letters
 * crossed, may be an anagram of a word. A move lays at most `max_laid` tiles: the rack's, or
 * fewer (duplicat eliptic lays at most 7 of 8).
 *
 * Every input is checked before use: the lexicon's arrays (edges in range, labels matching
 * the per-node letter masks), the board's characters and size, the rack's counts. Nothing
 * here trusts Python to have done it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_dawg.h"

#define MAX_SIZE 26
#define MAX_TILES 16
#define JOKER 26
#define NO_CROSS (-1)
#define ANY_LETTER ((1u << 26) - 1)
#define VERSION 5
#define HEADER_SIZE 32

static const uint64_t PROBES[3] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full,
                                   0x165667B19E3779F9ull};

/* ------------------------------------------------------------------ the kernel object */

typedef struct {
    int32_t W, B, C, A, D; /* word multiplier, board points, cross points, paired values */
    uint8_t end;           /* the square after the word k tiles would end */
} Entry;

typedef struct {
    uint32_t stamp;  /* the position this span was computed for */
    uint8_t kmax;
    Entry e[MAX_TILES + 1];
} Span;

typedef struct {
    PyObject_HEAD
    uint32_t nodes;
    uint32_t *first, *edges, *reach, *lengths, *targets;
    uint8_t *terminal, *height;
    uint8_t *filter;
    uint64_t filter_bits_shift;
    uint64_t weights[26];
    int size;
    int32_t tile_value[26];
    uint8_t lf[MAX_SIZE][MAX_SIZE], wf[MAX_SIZE][MAX_SIZE]; /* by row, column */
    uint8_t two[26][26];
    int bingo_at;
    int32_t bingo;
    int max_laid; /* the most tiles one move lays */
    uint32_t stamp;
    Span *spans; /* [2][MAX_SIZE][MAX_SIZE] */
} Kernel;

/* ------------------------------------------------------------------ one position */

typedef struct {
    int8_t cell[MAX_SIZE];
    int32_t value[MAX_SIZE];
    uint32_t mask[MAX_SIZE];
    int32_t cross[MAX_SIZE];
    uint8_t lf[MAX_SIZE], wf[MAX_SIZE];
    uint8_t anchor[MAX_SIZE];
    int anchors;
} Line;

typedef struct {
    int64_t score;
    uint8_t across, index, start, len;
    uint32_t jokers;
    char word[MAX_SIZE];
} Found;

typedef struct {
    Kernel *k;
    int size;
    Line line[2][MAX_SIZE];
    int counts[27]; /* tiles left while the search lays them */
    int full[27];   /* the whole rack, for bounds computed mid-search */
    int tiles;
    int most; /* the most tiles a move of this rack lays: tiles, or max_laid when fewer */
    uint32_t playable;
    int rack_values[MAX_TILES]; /* best first, jokers 0 */
    int caps_known;
    uint32_t cap_mask[64];
    int cap_value[64];
    uint64_t rack_key;
    /* the search */
    int prune, top, limit;
    int64_t threshold, floor;
    int64_t *heap;
    int heap_len;
    Found *found;
    size_t n_found, cap_found;
    int failed;
    /* the start being searched */
    Line *L;
    int across, index, a, must_end, skip_single, bingo_here;
    uint32_t forced;
    char word[MAX_SIZE];
    int wlen;
    uint32_t jokers;
} Ctx;

static inline uint32_t child_of(const Kernel *k, uint32_t node, int letter)
{
    uint32_t bits = k->edges[node];
    return k->targets[k->first[node] + __builtin_popcount(bits & ((1u << letter) - 1))];
}

static inline int has_child(const Kernel *k, uint32_t node, int letter)
{
    return (k->edges[node] >> letter) & 1;
}

/* Letters L such that before + L + after is a word (two-letter words: on the list too). */
static uint32_t cross_check(const Kernel *k, const int8_t *before, int nb, const int8_t *after,
                            int na)
{
    uint32_t node = 0;
    for (int i = 0; i < nb; i++) {
        if (!has_child(k, node, before[i]))
            return 0;
        node = child_of(k, node, before[i]);
    }
    uint32_t mask = 0, todo = k->edges[node];
    while (todo) {
        int letter = __builtin_ctz(todo);
        todo &= todo - 1;
        uint32_t end = child_of(k, node, letter);
        int ok = 1;
        for (int i = 0; i < na && ok; i++) {
            if (!has_child(k, end, after[i]))
                ok = 0;
            else
                end = child_of(k, end, after[i]);
        }
        if (!ok || !k->terminal[end])
            continue;
        if (nb + na == 1) {
            int x = nb ? before[0] : letter, y = nb ? letter : after[0];
            if (!k->two[x][y])
                continue;
        }
        mask |= 1u << letter;
    }
    return mask;
}

/* Cells, points, cross-checks and anchors of every line in both directions. */
static void lay_out(Ctx *x, const int8_t grid[MAX_SIZE][MAX_SIZE],
                    const int32_t points[MAX_SIZE][MAX_SIZE])
{
    const Kernel *k = x->k;
    int n = x->size, empty = 1;
    for (int r = 0; r < n && empty; r++)
        for (int c = 0; c < n; c++)
            if (grid[r][c] >= 0) {
                empty = 0;
                break;
            }
    for (int across = 0; across < 2; across++) {
        for (int i = 0; i < n; i++) {
            Line *L = &x->line[across][i];
            L->anchors = 0;
            for (int j = 0; j < n; j++) {
                int r = across ? i : j, c = across ? j : i;
                L->cell[j] = grid[r][c];
                L->value[j] = points[r][c];
                L->lf[j] = k->lf[r][c];
                L->wf[j] = k->wf[r][c];
                L->mask[j] = ANY_LETTER;
                L->cross[j] = NO_CROSS;
                L->anchor[j] = 0;
            }
            for (int j = 0; j < n; j++) {
                if (L->cell[j] >= 0) {
                    L->mask[j] = 0;
                    continue;
                }
                /* The perpendicular line through this square: square (p, q) along it. */
                int p = i;
                int8_t perp[MAX_SIZE];
                int32_t perp_points[MAX_SIZE];
                for (int q = 0; q < n; q++) {
                    int r = across ? q : j, c = across ? j : q;
                    perp[q] = grid[r][c];
                    perp_points[q] = points[r][c];
                }
                int above = p > 0 && perp[p - 1] >= 0;
                int below = p + 1 < n && perp[p + 1] >= 0;
                int beside = (j > 0 && L->cell[j - 1] >= 0) || (j + 1 < n && L->cell[j + 1] >= 0);
                int centre = empty && i == n / 2 && j == n / 2;
                if (above || below || beside || centre) {
                    L->anchor[j] = 1;
                    L->anchors++;
                }
                if (!(above || below))
                    continue;
                int top = p, bottom = p;
                while (top > 0 && perp[top - 1] >= 0)
                    top--;
                while (bottom + 1 < n && perp[bottom + 1] >= 0)
                    bottom++;
                L->mask[j] = cross_check(k, perp + top, p - top, perp + p + 1, bottom - p);
                int32_t sum = 0;
                for (int q = top; q <= bottom; q++)
                    if (q != p)
                        sum += perp_points[q];
                L->cross[j] = sum;
            }
        }
    }
}

/* The most a rack tile allowed by `mask` is worth (0 when only a joker may go there). */
static int cap_of(Ctx *x, uint32_t mask)
{
    for (int i = 0; i < x->caps_known; i++)
        if (x->cap_mask[i] == mask)
            return x->cap_value[i];
    int best = 0;
    for (int letter = 0; letter < 26; letter++)
        if ((mask >> letter & 1) && x->full[letter] && x->k->tile_value[letter] > best)
            best = x->k->tile_value[letter];
    if (x->caps_known < 64) {
        x->cap_mask[x->caps_known] = mask;
        x->cap_value[x->caps_known++] = best;
    }
    return best;
}

/* The rack's k best values paired with the k largest of `factors`: the most those k tiles
 * can add (the rearrangement inequality). */
static int32_t paired(const Ctx *x, const int *factors, int n)
{
    int sorted[MAX_TILES];
    for (int i = 0; i < n; i++) {
        int v = factors[i], j = i;
        while (j > 0 && sorted[j - 1] < v) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = v;
    }
    int32_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += x->rack_values[i] * sorted[i];
    return sum;
}

/* Bound terms for laying k = 1..kmax more tiles from empty square `col` on: the tiles go on
 * the next k empty squares, and the word then ends after the board tiles that follow. */
static Span *span_at(Ctx *x, int across, int index, int col)
{
    Kernel *k = x->k;
    Span *s = &k->spans[(across * MAX_SIZE + index) * MAX_SIZE + col];
    if (s->stamp == k->stamp)
        return s;
    const Line *L = &x->line[across][index];
    int n = x->size, c = col, kk = 0;
    int32_t W = 1, B = 0, C = 0, capA = 0, capD = 0;
    int lfs[MAX_TILES], xs[MAX_TILES];
    while (kk < x->most && c < n && (L->mask[c] & x->playable)) {
        int lf = L->lf[c], wf = L->wf[c];
        int xw = L->cross[c] == NO_CROSS ? 0 : wf;
        int cap = cap_of(x, L->mask[c]);
        W *= wf;
        C += L->cross[c] == NO_CROSS ? 0 : L->cross[c] * wf;
        lfs[kk] = lf;
        xs[kk] = lf * xw;
        capA += cap * lf;
        capD += cap * lf * xw;
        kk++;
        c++;
        while (c < n && L->cell[c] >= 0)
            B += L->value[c++];
        Entry *e = &s->e[kk];
        e->W = W;
        e->B = B;
        e->C = C;
        int32_t a = paired(x, lfs, kk), d = paired(x, xs, kk);
        e->A = a < capA ? a : capA;
        e->D = d < capD ? d : capD;
        e->end = (uint8_t)c;
    }
    s->kmax = (uint8_t)kk;
    s->stamp = k->stamp;
    return s;
}

/* The most any move through this state can score; -1 when none can end at all. */
static int64_t bound_at(Ctx *x, uint32_t node, int col, int64_t main, int64_t mult,
                        int64_t crossed, int placed)
{
    const Span *s = span_at(x, x->across, x->index, col);
    int rest = x->most - placed;
    int kmax = rest < s->kmax ? rest : s->kmax;
    uint32_t ending = x->k->lengths[node];
    int64_t best = -1;
    for (int kk = 1; kk <= kmax; kk++) {
        const Entry *e = &s->e[kk];
        int d = e->end - col;
        if (e->end <= x->a || (d < 32 && !(ending >> d & 1)))
            continue;
        int64_t b = mult * e->W * (main + e->B + e->A) + crossed + e->C + e->D;
        if (x->bingo_here && placed + kk == x->k->bingo_at)
            b += x->k->bingo;
        if (b > best)
            best = b;
    }
    return best;
}

/* ------------------------------------------------------------------ collecting moves */

static void heap_push(Ctx *x, int64_t score)
{
    int64_t *h = x->heap;
    if (x->heap_len < x->limit) {
        int i = x->heap_len++;
        h[i] = score;
        while (i > 0 && h[(i - 1) / 2] > h[i]) {
            int64_t t = h[i];
            h[i] = h[(i - 1) / 2];
            h[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    } else if (score > h[0]) {
        h[0] = score;
        int i = 0;
        for (;;) {
            int l = 2 * i + 1, r = l + 1, m = i;
            if (l < x->heap_len && h[l] < h[m])
                m = l;
            if (r < x->heap_len && h[r] < h[m])
                m = r;
            if (m == i)
                break;
            int64_t t = h[i];
            h[i] = h[m];
            h[m] = t;
            i = m;
        }
    } else {
        return;
    }
    if (x->heap_len == x->limit && h[0] > x->threshold)
        x->threshold = h[0];
}

static void drop_below_threshold(Ctx *x)
{
    size_t kept = 0;
    for (size_t i = 0; i < x->n_found; i++)
        if (x->found[i].score >= x->threshold)
            x->found[kept++] = x->found[i];
    x->n_found = kept;
}

static void emit(Ctx *x, int64_t score, int end)
{
    if (score < x->threshold)
        return;
    if (x->top && score > x->threshold) {
        x->threshold = score;
        x->n_found = 0;
    }
    if (x->limit) {
        heap_push(x, score);
        if (x->n_found >= 4 * (size_t)x->limit + 256)
            drop_below_threshold(x);
    }
    if (x->n_found == x->cap_found) {
        size_t grown = x->cap_found ? 2 * x->cap_found : 256;
        Found *more = realloc(x->found, grown * sizeof(Found));
        if (!more) {
            x->failed = 1;
            return;
        }
        x->found = more;
        x->cap_found = grown;
    }
    Found *f = &x->found[x->n_found++];
    f->score = score;
    f->across = (uint8_t)x->across;
    f->index = (uint8_t)x->index;
    f->start = (uint8_t)(end - x->wlen);
    f->len = (uint8_t)x->wlen;
    f->jokers = x->jokers;
    memcpy(f->word, x->word, (size_t)x->wlen);
}

static void finish(Ctx *x, int64_t main, int64_t mult, int64_t crossed, int placed, int end)
{
    if (x->wlen < 2 || (placed == 1 && x->skip_single))
        return;
    if (x->wlen == 2 && !x->k->two[x->word[0] - 'A'][x->word[1] - 'A'])
        return;
    int64_t score = main * mult + crossed + (placed == x->k->bingo_at ? x->k->bingo : 0);
    emit(x, score, end);
}

/* ------------------------------------------------------------------ the search */

static void extend(Ctx *x, uint32_t node, int col, int64_t main, int64_t mult, int64_t crossed,
                   int placed, uint32_t have)
{
    const Kernel *k = x->k;
    const Line *L = x->L;
    const int n = x->size;
    int walked = 0;
    while (col < n && L->cell[col] >= 0) {
        int letter = L->cell[col];
        if (!has_child(k, node, letter))
            goto out;
        node = child_of(k, node, letter);
        x->word[x->wlen++] = (char)('A' + letter);
        main += L->value[col];
        walked++;
        col++;
    }
    if (col > x->a) {
        if (k->terminal[node])
            finish(x, main, mult, crossed, placed, col);
    } else if (k->height[node] < x->must_end - col || (k->reach[node] & x->forced) != x->forced) {
        goto out;
    }
    int rest = x->most - placed;
    if (col >= n || !rest || x->failed)
        goto out;
    int *counts = x->counts;
    uint32_t todo = k->edges[node] & (counts[JOKER] ? L->mask[col] : L->mask[col] & have);
    if (!todo)
        goto out;
    if (x->prune && bound_at(x, node, col, main, mult, crossed, placed) < x->threshold)
        goto out;
    int lf = L->lf[col], wf = L->wf[col];
    int32_t cx = L->cross[col];
    int after = col + 1;
    uint32_t follow = after < n && L->cell[after] >= 0 ? 1u << L->cell[after] : 0;
    uint32_t open_next = 0;
    if (!follow && after < n && rest > 1)
        open_next = counts[JOKER] ? L->mask[after] : L->mask[after] & have;
    int early = col < x->a;
    while (todo) {
        int letter = __builtin_ctz(todo);
        todo &= todo - 1;
        uint32_t child = child_of(k, node, letter);
        if (follow) {
            if (!(k->edges[child] & follow))
                continue;
        } else if (!(k->edges[child] & open_next) && (early || !k->terminal[child])) {
            continue;
        }
        if (early && (k->height[child] < x->must_end - after ||
                      (k->reach[child] & x->forced) != x->forced))
            continue;
        x->word[x->wlen++] = (char)('A' + letter);
        if (counts[letter]) {
            counts[letter]--;
            int64_t v = (int64_t)k->tile_value[letter] * lf;
            extend(x, child, after, main + v, mult * wf,
                   cx < 0 ? crossed : crossed + (cx + v) * wf, placed + 1,
                   counts[letter] ? have : have & ~(1u << letter));
            counts[letter]++;
        }
        if (counts[JOKER]) {
            counts[JOKER]--;
            x->jokers |= 1u << (x->wlen - 1);
            extend(x, child, after, main, mult * wf, cx < 0 ? crossed : crossed + (int64_t)cx * wf,
                   placed + 1, have);
            x->jokers &= ~(1u << (x->wlen - 1));
            counts[JOKER]++;
        }
        x->wlen--;
    }
out:
    x->wlen -= walked;
}

static int multiset_may_exist(const Kernel *k, uint64_t key)
{
    for (int i = 0; i < 3; i++) {
        uint64_t slot = (key * PROBES[i]) >> k->filter_bits_shift;
        if (!(k->filter[slot >> 3] >> (slot & 7) & 1))
            return 0;
    }
    return 1;
}

static int any_anagram(const Kernel *k, uint64_t key, int jokers, int lowest)
{
    if (!jokers)
        return multiset_may_exist(k, key);
    for (int letter = lowest; letter < 26; letter++)
        if (any_anagram(k, key + k->weights[letter], jokers - 1, letter))
            return 1;
    return 0;
}

/* Whether the rack's tiles in `left`, less `drop` of them (letters from `lowest` on), with the
 * board letters of `key`, may be an anagram of a word. */
static int kept_anagram(const Kernel *k, int *left, uint64_t key, int drop, int lowest)
{
    if (!drop) {
        if (left[JOKER] > 3)
            return 1; /* too many choices to try: "perhaps" */
        return any_anagram(k, key, left[JOKER], 0);
    }
    for (int tile = lowest; tile < 27; tile++) {
        if (!left[tile])
            continue;
        left[tile]--;
        int found = kept_anagram(k, left, tile == JOKER ? key : key - k->weights[tile], drop - 1,
                                 tile);
        left[tile]++;
        if (found)
            return 1;
    }
    return 0;
}

/* Whether laying `bingo_at` tiles from `start` could make a word at all (see topbound). */
static int bingo_possible(Ctx *x, const Line *L, int start)
{
    const Kernel *k = x->k;
    if (x->most < k->bingo_at || !k->bingo)
        return 0;
    uint64_t key = 0;
    int placed = 0, c = start;
    while (c < x->size && (placed < k->bingo_at || L->cell[c] >= 0)) {
        if (L->cell[c] >= 0)
            key += k->weights[L->cell[c]];
        else if (L->mask[c] & x->playable)
            placed++;
        else
            break;
        c++;
    }
    if (placed < k->bingo_at)
        return 0;
    int left[27];
    memcpy(left, x->full, sizeof left);
    return kept_anagram(k, left, key + x->rack_key, x->tiles - k->bingo_at, 0);
}

typedef struct {
    int64_t bound;
    uint8_t across, index, a, start, bingo;
} Start;

static int by_bound(const void *p, const void *q)
{
    int64_t a = ((const Start *)p)->bound, b = ((const Start *)q)->bound;
    return a < b ? 1 : a > b ? -1 : 0;
}

static void prepare_start(Ctx *x, const Start *s)
{
    const Line *L = &x->line[s->across][s->index];
    x->L = (Line *)L;
    x->across = s->across;
    x->index = s->index;
    x->a = s->a;
    x->skip_single = !s->across && L->cross[s->a] != NO_CROSS;
    x->bingo_here = s->bingo;
    x->must_end = s->a + 1;
    x->forced = 0;
    while (x->must_end < x->size && L->cell[x->must_end] >= 0)
        x->forced |= 1u << L->cell[x->must_end++];
    x->wlen = 0;
    x->jokers = 0;
}

static uint32_t have_mask(const Ctx *x)
{
    uint32_t have = 0;
    for (int i = 0; i < 26; i++)
        if (x->counts[i])
            have |= 1u << i;
    return have;
}

/* Every start (the search's first square for a leftmost anchor), with its bound when
 * pruning; returns how many, or -1 when out of memory. */
static int plan(Ctx *x, Start **out)
{
    int n = x->size, count = 0, room = 0;
    Start *starts = NULL;
    for (int across = 1; across >= 0; across--) {
        for (int i = 0; i < n; i++) {
            const Line *L = &x->line[across][i];
            if (!L->anchors)
                continue;
            for (int a = 0; a < n; a++) {
                if (!L->anchor[a])
                    continue;
                int first, last;
                if (a > 0 && L->cell[a - 1] >= 0) {
                    first = a;
                    while (first > 0 && L->cell[first - 1] >= 0)
                        first--;
                    last = first;
                } else {
                    int limit = 0;
                    while (limit < a && limit < x->most - 1) {
                        int square = a - limit - 1;
                        if (L->cell[square] >= 0 || L->cross[square] != NO_CROSS)
                            break;
                        if (square > 0 && L->cell[square - 1] >= 0)
                            break;
                        limit++;
                    }
                    first = a - limit;
                    last = a;
                }
                for (int start = first; start <= last; start++) {
                    if (count == room) {
                        room = room ? 2 * room : 256;
                        Start *more = realloc(starts, (size_t)room * sizeof(Start));
                        if (!more) {
                            free(starts);
                            return -1;
                        }
                        starts = more;
                    }
                    Start *s = &starts[count];
                    s->across = (uint8_t)across;
                    s->index = (uint8_t)i;
                    s->a = (uint8_t)a;
                    s->start = (uint8_t)start;
                    s->bingo = 1;
                    s->bound = 0;
                    if (x->prune) {
                        s->bingo = (uint8_t)bingo_possible(x, L, start);
                        prepare_start(x, s);
                        uint32_t node = 0;
                        int64_t main = 0;
                        int col = start, dead = 0;
                        while (col < n && L->cell[col] >= 0) {
                            if (!has_child(x->k, node, L->cell[col])) {
                                dead = 1;
                                break;
                            }
                            node = child_of(x->k, node, L->cell[col]);
                            main += L->value[col++];
                        }
                        if (dead)
                            continue;
                        s->bound = bound_at(x, node, col, main, 1, 0, 0);
                        if (s->bound < 0)
                            continue;
                    }
                    count++;
                }
            }
        }
    }
    *out = starts;
    return count;
}

/* ------------------------------------------------------------------ results */

static int canonical(const void *p, const void *q)
{
    const Found *f = p, *g = q;
    if (f->score != g->score)
        return f->score > g->score ? -1 : 1;
    int fr = f->across ? f->index : f->start, fc = f->across ? f->start : f->index;
    int gr = g->across ? g->index : g->start, gc = g->across ? g->start : g->index;
    if (fr != gr)
        return fr < gr ? -1 : 1;
    if (fc != gc)
        return fc < gc ? -1 : 1;
    if (f->across != g->across)
        return f->across ? -1 : 1;
    int len = f->len < g->len ? f->len : g->len;
    int c = memcmp(f->word, g->word, (size_t)len);
    if (c)
        return c;
    if (f->len != g->len)
        return f->len < g->len ? -1 : 1;
    uint32_t a = f->jokers, b = g->jokers;
    while (a && b) {
        int i = __builtin_ctz(a), j = __builtin_ctz(b);
        if (i != j)
            return i < j ? -1 : 1;
        a &= a - 1;
        b &= b - 1;
    }
    return a ? 1 : b ? -1 : 0;
}

static PyObject *as_list(const Found *found, size_t n)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const Found *f = &found[i];
        int count = __builtin_popcount(f->jokers);
        PyObject *jokers = PyTuple_New(count);
        if (!jokers) {
            Py_DECREF(list);
            return NULL;
        }
        uint32_t bits = f->jokers;
        for (int j = 0; j < count; j++) {
            PyTuple_SET_ITEM(jokers, j, PyLong_FromLong(__builtin_ctz(bits)));
            bits &= bits - 1;
        }
        int row = f->across ? f->index : f->start, col = f->across ? f->start : f->index;
        PyObject *item = Py_BuildValue("(LiiOs#N)", (long long)f->score, row, col,
                                       f->across ? Py_True : Py_False, f->word,
                                       (Py_ssize_t)f->len, jokers);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

/* search(board, counts, top, limit, floor, prune) -> [(score, row, col, across, word, jokers)]
 *
 * board: the rows joined (size * size characters: '.', A-Z, a-z for a joker); counts: 27
 * tiles per letter, jokers last. top: only the moves at the best score; limit: the best
 * `limit` moves (0: no limit); floor: only moves scoring at least this; prune: bound the
 * search (without it, every move is enumerated and then filtered). Best first, in the
 * canonical order of engine.movegen. */
static PyObject *Kernel_search(Kernel *self, PyObject *args)
{
    const char *board;
    Py_ssize_t board_len;
    PyObject *counts_obj;
    int top, limit, prune;
    long long floor;
    if (!PyArg_ParseTuple(args, "y#OpiLp", &board, &board_len, &counts_obj, &top, &limit, &floor,
                          &prune))
        return NULL;
    int n = self->size;
    /* Not the user's check (engine.movegen's names the ruleset's size): the reads below stay
     * inside the board given, whoever calls. */
    if (board_len != (Py_ssize_t)n * n) {
        PyErr_Format(PyExc_ValueError, "board: expected %d squares, got %zd", n * n, board_len);
        return NULL;
    }
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "limit: expected 0 (none) or more");
        return NULL;
    }
    Ctx *x = calloc(1, sizeof(Ctx));
    if (!x)
        return PyErr_NoMemory();
    x->k = self;
    x->size = n;
    PyObject *seq = PySequence_Fast(counts_obj, "counts: expected a sequence of 27 integers");
    if (!seq)
        goto fail;
    if (PySequence_Fast_GET_SIZE(seq) != 27) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "counts: expected 27 integers");
        goto fail;
    }
    for (int i = 0; i < 27; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            goto fail;
        }
        if (v < 0 || v > MAX_TILES) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "counts: each between 0 and 16");
            goto fail;
        }
        x->counts[i] = x->full[i] = (int)v;
        x->tiles += (int)v;
    }
    Py_DECREF(seq);
    if (x->tiles > MAX_TILES) {
        PyErr_SetString(PyExc_ValueError, "counts: at most 16 tiles");
        goto fail;
    }
    x->most = x->tiles < self->max_laid ? x->tiles : self->max_laid;
    int8_t grid[MAX_SIZE][MAX_SIZE];
    int32_t points[MAX_SIZE][MAX_SIZE];
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            char ch = board[r * n + c];
            if (ch == '.') {
                grid[r][c] = -1;
                points[r][c] = 0;
            } else if (ch >= 'A' && ch <= 'Z') {
                grid[r][c] = (int8_t)(ch - 'A');
                points[r][c] = self->tile_value[ch - 'A'];
            } else if (ch >= 'a' && ch <= 'z') {
                grid[r][c] = (int8_t)(ch - 'a');
                points[r][c] = 0;
            } else {
                PyErr_Format(PyExc_ValueError, "board: unknown character at square %d", r * n + c);
                goto fail;
            }
        }
    x->prune = prune;
    x->top = top;
    x->limit = limit;
    x->floor = floor;
    x->threshold = floor;
    if (limit) {
        x->heap = malloc((size_t)limit * sizeof(int64_t));
        if (!x->heap) {
            PyErr_NoMemory();
            goto fail;
        }
    }
    x->playable = x->counts[JOKER] ? ANY_LETTER : have_mask(x);
    int v = 0;
    for (int i = 0; i < 26; i++) {
        for (int j = 0; j < x->counts[i]; j++)
            x->rack_values[v++] = self->tile_value[i];
        x->rack_key += self->weights[i] * (uint64_t)x->counts[i];
    }
    for (int j = 0; j < x->counts[JOKER]; j++)
        x->rack_values[v++] = 0;
    for (int i = 1; i < v; i++) {
        int t = x->rack_values[i], j = i;
        while (j > 0 && x->rack_values[j - 1] < t) {
            x->rack_values[j] = x->rack_values[j - 1];
            j--;
        }
        x->rack_values[j] = t;
    }
    self->stamp++;
    if (self->stamp == 0) {
        for (size_t i = 0; i < 2 * MAX_SIZE * MAX_SIZE; i++)
            self->spans[i].stamp = 0;
        self->stamp = 1;
    }
    lay_out(x, (const int8_t(*)[MAX_SIZE])grid, (const int32_t(*)[MAX_SIZE])points);
    Start *starts = NULL;
    int count = x->tiles ? plan(x, &starts) : 0;
    if (count < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    if (prune && count)
        qsort(starts, (size_t)count, sizeof(Start), by_bound);
    uint32_t have = have_mask(x);
    for (int i = 0; i < count && !x->failed; i++) {
        if (prune && starts[i].bound < x->threshold)
            break;
        prepare_start(x, &starts[i]);
        extend(x, 0, starts[i].start, 0, 1, 0, 0, have);
    }
    free(starts);
    if (x->failed) {
        PyErr_NoMemory();
        goto fail;
    }
    drop_below_threshold(x);
    if (x->n_found > 1)
        qsort(x->found, x->n_found, sizeof(Found), canonical);
    size_t keep = x->n_found;
    if (limit && keep > (size_t)limit)
        keep = (size_t)limit;
    PyObject *result = as_list(x->found, keep);
    free(x->found);
    free(x->heap);
    free(x);
    return result;
fail:
    free(x->found);
    free(x->heap);
    free(x);
    return NULL;
}

/* ------------------------------------------------------------------ construction */

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int read_u32s(uint32_t **out, const uint8_t *p, size_t n)
{
    *out = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!*out)
        return 0;
    for (size_t i = 0; i < n; i++)
        (*out)[i] = read_u32(p + 4 * i);
    return 1;
}

static int fail_lexicon(const char *why)
{
    PyErr_Format(PyExc_ValueError, "lexicon bytes unusable by the kernel: %s", why);
    return -1;
}

static int load_lexicon(Kernel *self, const uint8_t *data, Py_ssize_t len)
{
    if (len < HEADER_SIZE || memcmp(data, "ARBDAWG\0", 8) != 0)
        return fail_lexicon("no lexicon header");
    if (read_u32(data + 8) != VERSION)
        return fail_lexicon("another format version");
    uint64_t nodes = read_u32(data + 12), n_edges = read_u32(data + 16);
    uint64_t filter_size = read_u32(data + 24);
    uint64_t expected = 4 * (nodes + 1) + 14 * nodes + 5 * n_edges + filter_size;
    if (nodes < 1 || (uint64_t)(len - HEADER_SIZE) != expected)
        return fail_lexicon("wrong length");
    if (filter_size < 8 || (filter_size & (filter_size - 1)))
        return fail_lexicon("multiset filter size not a power of two");
    const uint8_t *p = data + HEADER_SIZE;
    self->nodes = (uint32_t)nodes;
    if (!read_u32s(&self->first, p, nodes + 1))
        goto memory;
    p += 4 * (nodes + 1);
    self->terminal = malloc(nodes);
    self->height = malloc(nodes);
    if (!self->terminal || !self->height)
        goto memory;
    memcpy(self->terminal, p, nodes);
    p += nodes;
    memcpy(self->height, p, nodes);
    p += nodes;
    if (!read_u32s(&self->edges, p, nodes))
        goto memory;
    p += 4 * nodes;
    if (!read_u32s(&self->reach, p, nodes))
        goto memory;
    p += 4 * nodes;
    if (!read_u32s(&self->lengths, p, nodes))
        goto memory;
    p += 4 * nodes;
    const uint8_t *labels = p;
    p += n_edges;
    if (!read_u32s(&self->targets, p, n_edges))
        goto memory;
    p += 4 * n_edges;
    self->filter = malloc(filter_size);
    if (!self->filter)
        goto memory;
    memcpy(self->filter, p, filter_size);
    int bits = 0;
    while ((1ull << bits) < 8 * filter_size)
        bits++;
    self->filter_bits_shift = (uint64_t)(64 - bits);
    /* Each node's edges: in range, letters rising, exactly its letter mask. */
    if (self->first[0] != 0 || self->first[nodes] != n_edges)
        return fail_lexicon("edge table out of range");
    for (uint64_t node = 0; node < nodes; node++) {
        uint32_t from = self->first[node], to = self->first[node + 1];
        if (from > to || to > n_edges)
            return fail_lexicon("edge table out of range");
        if (self->edges[node] >> 26 ||
            (uint32_t)__builtin_popcount(self->edges[node]) != to - from)
            return fail_lexicon("letter mask does not match the edges");
        uint32_t mask = self->edges[node];
        for (uint32_t e = from; e < to; e++) {
            int letter = __builtin_ctz(mask);
            mask &= mask - 1;
            if (labels[e] != letter)
                return fail_lexicon("edge labels out of order");
            /* Children come after their parents: the walk can never loop. */
            if (self->targets[e] >= nodes || self->targets[e] <= node)
                return fail_lexicon("edge target out of range");
        }
    }
    return 0;
memory:
    PyErr_NoMemory();
    return -1;
}

static int read_ints(PyObject *obj, int32_t *out, int n, long lo, long hi, const char *what)
{
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: expected %d integers", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v < lo || v > hi) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "%s: %ld out of range %ld to %ld", what, v, lo, hi);
            return -1;
        }
        out[i] = (int32_t)v;
    }
    Py_DECREF(seq);
    return 0;
}

/* Kernel(lexicon_bytes, size, letter_factor, word_factor, tile_values, two_letter, bingo_at,
 *        bingo, max_laid, weights): letter_factor and word_factor row by row (size * size),
 * tile_values 26, two_letter 676 flags (first letter * 26 + second), weights the 26
 * multiset weights of engine.lexicon. */
static int Kernel_init(Kernel *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    Py_buffer lexicon;
    int size, bingo_at, bingo, max_laid;
    PyObject *lf, *wf, *values, *two, *weights;
    if (self->spans) {
        PyErr_SetString(PyExc_TypeError, "Kernel is initialised once");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "y*iOOOOiiiO", &lexicon, &size, &lf, &wf, &values, &two,
                          &bingo_at, &bingo, &max_laid, &weights))
        return -1;
    int status = -1;
    int32_t lfs[MAX_SIZE * MAX_SIZE], wfs[MAX_SIZE * MAX_SIZE], flags[26 * 26];
    if (size < 1 || size > MAX_SIZE) {
        PyErr_SetString(PyExc_ValueError, "size: expected 1 to 26");
        goto done;
    }
    if (bingo_at < 0 || bingo < 0 || bingo > 1000000) {
        PyErr_SetString(PyExc_ValueError, "bingo: out of range");
        goto done;
    }
    if (max_laid < 1 || max_laid > MAX_TILES) {
        PyErr_SetString(PyExc_ValueError, "max_laid: expected 1 to 16");
        goto done;
    }
    if (read_ints(lf, lfs, size * size, 1, 3, "letter_factor") ||
        read_ints(wf, wfs, size * size, 1, 3, "word_factor") ||
        read_ints(values, self->tile_value, 26, 0, 1000, "tile_values") ||
        read_ints(two, flags, 26 * 26, 0, 1, "two_letter"))
        goto done;
    if (read_weights(weights, self->weights) < 0)
        goto done;
    self->size = size;
    for (int i = 0; i < size * size; i++) {
        self->lf[i / size][i % size] = (uint8_t)lfs[i];
        self->wf[i / size][i % size] = (uint8_t)wfs[i];
    }
    for (int i = 0; i < 26 * 26; i++)
        self->two[i / 26][i % 26] = (uint8_t)flags[i];
    self->bingo_at = bingo_at;
    self->bingo = bingo;
    self->max_laid = max_laid;
    if (load_lexicon(self, lexicon.buf, lexicon.len) < 0)
        goto done;
    self->spans = calloc(2 * MAX_SIZE * MAX_SIZE, sizeof(Span));
    if (!self->spans) {
        PyErr_NoMemory();
        goto done;
    }
    self->stamp = 1;
    status = 0;
done:
    PyBuffer_Release(&lexicon);
    return status;
}

static PyObject *Kernel_search_checked(Kernel *self, PyObject *args)
{
    if (!self->spans) {
        PyErr_SetString(PyExc_TypeError, "Kernel not initialised");
        return NULL;
    }
    return Kernel_search(self, args);
}

static void Kernel_dealloc(Kernel *self)
{
    free(self->first);
    free(self->edges);
    free(self->reach);
    free(self->lengths);
    free(self->targets);
    free(self->terminal);
    free(self->height);
    free(self->filter);
    free(self->spans);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Kernel_methods[] = {
    {"search", (PyCFunction)Kernel_search_checked, METH_VARARGS,
     "search(board, counts, top, limit, floor, prune): moves best first, as tuples "
     "(score, row, col, across, word, jokers)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "engine._kernel.Kernel",
    .tp_basicsize = sizeof(Kernel),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The compiled move generator for one lexicon and one ruleset.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Kernel_init,
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_methods = Kernel_methods,
};

static PyMethodDef module_methods[] = {
    {"build_lexicon", build_lexicon, METH_VARARGS,
     "build_lexicon(words, weights) -> (nodes, edges, words, payload): the payload of "
     "Lexicon.to_bytes for sorted, distinct A-Z words, one per line."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, .m_name = "engine._kernel",
    .m_doc = "The compiled move generator of engine.movegen (see engine.kernel) and the "
             "lexicon builder of engine.lexicon.",
    .m_size = -1, .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__kernel(void)
{
    if (PyType_Ready(&KernelType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&kernel_module);
    if (!module)
        return NULL;
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(module, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(&KernelType);
        Py_DECREF(module);
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "FORMAT_VERSION", VERSION) < 0 ||
        PyModule_AddIntConstant(module, "MAX_TILES", MAX_TILES) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
