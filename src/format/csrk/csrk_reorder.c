/*
 * csrk_reorder.c -- the locality reorderings of CSR-k (csrk_reorder): the
 * permutation only; the build applies it (csrk_build.c).
 *
 * RCM: reverse Cuthill-McKee on the graph of the rows, two rows adjacent
 * when A or A^T has an entry linking them (nonsymmetric patterns are
 * symmetrized, the diagonal ignored). Each connected component, taken in the
 * order of its lowest row, starts from a pseudo-peripheral node: its node of
 * lowest degree, then the George-Liu iteration (a breadth-first level
 * structure from the candidate; the node of lowest degree of the last level
 * replaces it while its own structure is deeper). The breadth-first search
 * from that node visits neighbours by increasing degree; the order of all
 * components, reversed, is the permutation.
 *
 * Band-k: the rows grouped into super-rows (and super-super-rows, k = 3) as
 * the build groups them (psl_csrk_pointers); at each level a graph of the
 * groups (adjacent when an entry links two of their rows) ordered by the
 * RCM above; the super-rows placed by the position of their super-super-row
 * and then by their own (the super-row order reversed when it runs against
 * the super-super-rows'), each super-row's rows contiguous and in their
 * order, or reversed when the later ones reach the super-rows placed before
 * it (so that a group placed in reverse has its rows reversed too). The
 * groups stay the groups of the reordered matrix.
 *
 * Ties are broken by the lower index, so both are deterministic. Time: the
 * graph is built and its adjacency lists ordered by degree in linear time
 * (a counting sort of the nodes by degree, then the lists filled in that
 * order); each George-Liu step is one search of the component, at most
 * GEORGE_LIU_STEPS of them.
 */
#include "format/csrk/csrk.h"

#include <stdlib.h>

/* Most George-Liu steps per component (each one search of it); the depth
 * grows with each step, and a few steps are the rule. */
#define GEORGE_LIU_STEPS 32

/* An undirected graph without loops: the neighbours of node v are
 * adj[xadj[v] .. xadj[v+1]), ordered by increasing degree, then index. */
typedef struct graph {
    int32_t n;
    int64_t *xadj;
    int32_t *adj;
} graph;

static void graph_free(graph *g)
{
    free(g->xadj);
    free(g->adj);
    g->xadj = NULL;
    g->adj = NULL;
}

/* The graph of nnodes nodes of the n x n pattern (rp, ci): row i belongs
 * to node node_of[i] (NULL: node i), and two nodes are adjacent when an
 * entry (i, j) joins a row of one to a row (column j) of the other. */
static psl_status graph_build(int32_t n, const int64_t *rp, const int32_t *ci,
                              const int32_t *node_of, int32_t nnodes, graph *g)
{
    int64_t *start = NULL, *fill = NULL;
    int32_t *raw = NULL, *deg = NULL, *mark = NULL, *by_degree = NULL;
    int64_t *count = NULL;
    psl_status st;
    g->n = nnodes;
    g->xadj = NULL;
    g->adj = NULL;
    if ((st = psl_alloc_zero((void **)&start, (size_t)nnodes + 1, sizeof *start,
                             "reordering graph offsets")) != PSL_OK ||
        (st = psl_alloc((void **)&fill, (size_t)nnodes + 1, sizeof *fill,
                        "reordering graph offsets")) != PSL_OK ||
        (st = psl_alloc((void **)&deg, (size_t)nnodes + 1, sizeof *deg,
                        "reordering graph degrees")) != PSL_OK ||
        (st = psl_alloc((void **)&mark, (size_t)nnodes + 1, sizeof *mark,
                        "reordering graph marks")) != PSL_OK)
        goto done;
    /* both directions of every link, duplicates included */
    for (int32_t i = 0; i < n; i++) {
        const int32_t a = node_of ? node_of[i] : i;
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            const int32_t b = node_of ? node_of[ci[e]] : ci[e];
            if (a != b) {
                start[a + 1]++;
                start[b + 1]++;
            }
        }
    }
    for (int32_t v = 0; v < nnodes; v++)
        start[v + 1] += start[v];
    if ((st = psl_alloc((void **)&raw, (size_t)(start[nnodes] ? start[nnodes] : 1), sizeof *raw,
                        "reordering graph links")) != PSL_OK)
        goto done;
    memcpy(fill, start, ((size_t)nnodes + 1) * sizeof *fill);
    for (int32_t i = 0; i < n; i++) {
        const int32_t a = node_of ? node_of[i] : i;
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            const int32_t b = node_of ? node_of[ci[e]] : ci[e];
            if (a != b) {
                raw[fill[a]++] = b;
                raw[fill[b]++] = a;
            }
        }
    }
    /* drop duplicates in place: node v keeps deg[v] distinct neighbours at
     * the front of its segment */
    for (int32_t v = 0; v < nnodes; v++)
        mark[v] = -1;
    for (int32_t v = 0; v < nnodes; v++) {
        int64_t w = start[v];
        for (int64_t e = start[v]; e < start[v + 1]; e++)
            if (mark[raw[e]] != v) {
                mark[raw[e]] = v;
                raw[w++] = raw[e];
            }
        deg[v] = (int32_t)(w - start[v]);
    }
    /* the nodes by increasing degree, then index (a counting sort) */
    free(mark);
    mark = NULL;
    if ((st = psl_alloc_zero((void **)&count, (size_t)nnodes + 1, sizeof *count,
                             "reordering degree counts")) != PSL_OK ||
        (st = psl_alloc((void **)&by_degree, (size_t)nnodes + 1, sizeof *by_degree,
                        "reordering degree order")) != PSL_OK)
        goto done;
    for (int32_t v = 0; v < nnodes; v++)
        count[deg[v] + 1]++;
    for (int32_t d = 0; d < nnodes; d++)
        count[d + 1] += count[d];
    for (int32_t v = 0; v < nnodes; v++)
        by_degree[count[deg[v]]++] = v;
    /* each list filled by its neighbours taken in that order, so sorted */
    if ((st = psl_alloc((void **)&g->xadj, (size_t)nnodes + 1, sizeof *g->xadj,
                        "reordering graph offsets")) != PSL_OK)
        goto done;
    g->xadj[0] = 0;
    for (int32_t v = 0; v < nnodes; v++)
        g->xadj[v + 1] = g->xadj[v] + deg[v];
    if ((st = psl_alloc((void **)&g->adj, (size_t)(g->xadj[nnodes] ? g->xadj[nnodes] : 1),
                        sizeof *g->adj, "reordering graph")) != PSL_OK)
        goto done;
    memcpy(fill, g->xadj, ((size_t)nnodes + 1) * sizeof *fill);
    for (int32_t r = 0; r < nnodes; r++) {
        const int32_t v = by_degree[r];
        for (int64_t e = start[v]; e < start[v] + deg[v]; e++)
            g->adj[fill[raw[e]]++] = v;
    }
done:
    if (st != PSL_OK)
        graph_free(g);
    free(start);
    free(fill);
    free(raw);
    free(deg);
    free(mark);
    free(count);
    free(by_degree);
    return st;
}

static int32_t degree(const graph *g, int32_t v) { return (int32_t)(g->xadj[v + 1] - g->xadj[v]); }

/* The lower-degree node of a and b (the lower index on a tie). */
static int32_t lower_degree(const graph *g, int32_t a, int32_t b)
{
    const int32_t da = degree(g, a), db = degree(g, b);
    return da < db || (da == db && a < b) ? a : b;
}

/* Breadth-first search of root's component, neighbours in list order: the
 * nodes in the order reached into queue (their count returned), the first
 * queue index of the deepest level in *last and the number of levels in
 * *depth. level[] is -1 for every node of the component on entry and again
 * on return. */
static int32_t search(const graph *g, int32_t root, int32_t *queue, int32_t *level,
                      int32_t *last, int32_t *depth)
{
    int32_t head = 0, tail = 0;
    queue[tail++] = root;
    level[root] = 0;
    *last = 0;
    while (head < tail) {
        const int32_t v = queue[head++];
        for (int64_t e = g->xadj[v]; e < g->xadj[v + 1]; e++) {
            const int32_t u = g->adj[e];
            if (level[u] < 0) {
                level[u] = level[v] + 1;
                if (level[u] > level[queue[tail - 1]])
                    *last = tail;
                queue[tail++] = u;
            }
        }
    }
    *depth = level[queue[tail - 1]] + 1;
    for (int32_t q = 0; q < tail; q++)
        level[queue[q]] = -1;
    return tail;
}

/* Reverse Cuthill-McKee order of g: order[new] = old. */
static psl_status rcm_order(const graph *g, int32_t *order)
{
    const int32_t n = g->n;
    int32_t *level = NULL, *buf_a = NULL, *buf_b = NULL;
    bool *done = NULL;
    psl_status st;
    if ((st = psl_alloc((void **)&level, (size_t)n + 1, sizeof *level, "RCM levels")) != PSL_OK ||
        (st = psl_alloc((void **)&buf_a, (size_t)n + 1, sizeof *buf_a, "RCM queue")) != PSL_OK ||
        (st = psl_alloc((void **)&buf_b, (size_t)n + 1, sizeof *buf_b, "RCM queue")) != PSL_OK ||
        (st = psl_alloc_zero((void **)&done, (size_t)n + 1, sizeof *done, "RCM marks")) != PSL_OK)
        goto out;
    for (int32_t v = 0; v < n; v++)
        level[v] = -1;
    int32_t placed = 0;
    for (int32_t s = 0; s < n; s++) {
        if (done[s])
            continue;
        int32_t *queue = buf_a, *trial = buf_b;
        int32_t last, depth, size = search(g, s, queue, level, &last, &depth);
        /* the lowest-degree node of the component, then George-Liu */
        int32_t root = queue[0];
        for (int32_t q = 1; q < size; q++)
            root = lower_degree(g, root, queue[q]);
        size = search(g, root, queue, level, &last, &depth);
        for (int step = 0; step < GEORGE_LIU_STEPS && depth > 1; step++) {
            int32_t cand = queue[last];
            for (int32_t q = last + 1; q < size; q++)
                cand = lower_degree(g, cand, queue[q]);
            int32_t cand_last, cand_depth;
            search(g, cand, trial, level, &cand_last, &cand_depth);
            if (cand_depth <= depth)
                break;
            int32_t *t = queue; /* the candidate's search becomes the current */
            queue = trial;
            trial = t;
            last = cand_last;
            depth = cand_depth;
        }
        /* Cuthill-McKee: the search from root; the whole order reversed */
        for (int32_t q = 0; q < size; q++) {
            done[queue[q]] = true;
            order[n - 1 - placed - q] = queue[q];
        }
        placed += size;
    }
out:
    free(level);
    free(buf_a);
    free(buf_b);
    free(done);
    return st;
}

/* The RCM order (order[new] = old) of the graph of nnodes nodes that
 * node_of makes of the pattern (graph_build). */
static psl_status rcm_of(int32_t n, const int64_t *rp, const int32_t *ci,
                         const int32_t *node_of, int32_t nnodes, int32_t *order)
{
    graph g;
    PSL_TRY(graph_build(n, rp, ci, node_of, nnodes, &g));
    psl_status st = rcm_order(&g, order);
    graph_free(&g);
    return st;
}

/* True when the positions q of order (order[q] = super-row s) fall as the
 * new positions pos[group[s]] of their super-super-rows rise (negative
 * covariance). */
static bool runs_against(const int32_t *order, int32_t m, const int32_t *group,
                         const int32_t *pos)
{
    double mean_q = (m - 1) / 2.0, mean_t = 0, cov = 0;
    for (int32_t q = 0; q < m; q++)
        mean_t += pos[group[order[q]]];
    mean_t /= m;
    for (int32_t q = 0; q < m; q++)
        cov += (q - mean_q) * (pos[group[order[q]]] - mean_t);
    return cov < 0;
}

/* The rows of the super-rows in their new order (order[q] = super-row s):
 * perm and the new sr_ptr (new_ptr, nsr + 1 entries). A super-row keeps
 * its rows in their order, or reverses them when the later ones reach the
 * super-rows placed before it (the covariance of a row's index and the
 * mean new position of the super-rows its entries reach is negative), so
 * that a super-row placed in reverse has its rows reversed too. */
static psl_status place_rows(const int64_t *rp, const int32_t *ci, const int32_t *sr_ptr,
                             const int32_t *sr_of_row, int32_t nsr, const int32_t *order,
                             int32_t *perm, int32_t *new_ptr)
{
    int32_t *pos = NULL;
    PSL_TRY(psl_alloc((void **)&pos, (size_t)nsr, sizeof *pos, "band-k positions"));
    for (int32_t q = 0; q < nsr; q++)
        pos[order[q]] = q;
    int32_t r = 0;
    for (int32_t q = 0; q < nsr; q++) {
        const int32_t s = order[q], a = sr_ptr[s], b = sr_ptr[s + 1];
        const double mid = (a + b - 1) / 2.0;
        double cov = 0;
        for (int32_t i = a; i < b; i++) {
            double sum = 0;
            for (int64_t e = rp[i]; e < rp[i + 1]; e++)
                sum += pos[sr_of_row[ci[e]]] - q;
            if (rp[i + 1] > rp[i])
                cov += (i - mid) * sum / (double)(rp[i + 1] - rp[i]);
        }
        new_ptr[q] = r;
        for (int32_t i = a; i < b; i++)
            perm[r++] = cov < 0 ? a + b - 1 - i : i;
    }
    new_ptr[nsr] = sr_ptr[nsr];
    free(pos);
    return PSL_OK;
}

/* Band-k over the grouping p (psl_csrk_pointers' layout, k = 2 or 3, nsr
 * super-rows, nssr super-super-rows): perm, and p rewritten for the
 * reordered rows. */
static psl_status bandk(int32_t n, const int64_t *rp, const int32_t *ci, int32_t k, int32_t nsr,
                        int32_t nssr, int32_t *p, int32_t *perm)
{
    const int32_t *sr_ptr = p, *ssr_ptr = k == 3 ? p + nsr + 1 : NULL;
    int32_t *sr_of_row = NULL, *ssr_of_row = NULL, *ssr_of_sr = NULL, *sr_order = NULL;
    int32_t *ssr_order = NULL, *ssr_pos = NULL, *next = NULL, *new_order = NULL;
    int32_t *new_ptr = NULL;
    psl_status st;
    if ((st = psl_alloc((void **)&sr_of_row, (size_t)n, sizeof *sr_of_row,
                        "band-k row groups")) != PSL_OK ||
        (st = psl_alloc((void **)&sr_order, (size_t)nsr, sizeof *sr_order,
                        "band-k super-row order")) != PSL_OK ||
        (st = psl_alloc((void **)&new_ptr, (size_t)psl_csrk_ptr_count(k, nsr, nssr),
                        sizeof *new_ptr, "band-k pointers")) != PSL_OK)
        goto out;
    for (int32_t s = 0; s < nsr; s++)
        for (int32_t i = sr_ptr[s]; i < sr_ptr[s + 1]; i++)
            sr_of_row[i] = s;
    if ((st = rcm_of(n, rp, ci, sr_of_row, nsr, sr_order)) != PSL_OK)
        goto out;
    const int32_t *final_order = sr_order;
    if (k == 3) {
        /* the super-rows by the new position of their super-super-row, in
         * their own RCM order inside each */
        if ((st = psl_alloc((void **)&ssr_of_row, (size_t)n, sizeof *ssr_of_row,
                            "band-k row groups")) != PSL_OK ||
            (st = psl_alloc((void **)&ssr_of_sr, (size_t)nsr, sizeof *ssr_of_sr,
                            "band-k super-row groups")) != PSL_OK ||
            (st = psl_alloc((void **)&ssr_order, (size_t)nssr, sizeof *ssr_order,
                            "band-k super-super-row order")) != PSL_OK ||
            (st = psl_alloc((void **)&ssr_pos, (size_t)nssr, sizeof *ssr_pos,
                            "band-k super-super-row order")) != PSL_OK ||
            (st = psl_alloc((void **)&next, (size_t)nssr, sizeof *next,
                            "band-k super-super-row order")) != PSL_OK ||
            (st = psl_alloc((void **)&new_order, (size_t)nsr, sizeof *new_order,
                            "band-k super-row order")) != PSL_OK)
            goto out;
        for (int32_t t = 0; t < nssr; t++)
            for (int32_t s = ssr_ptr[t]; s < ssr_ptr[t + 1]; s++)
                ssr_of_sr[s] = t;
        for (int32_t i = 0; i < n; i++)
            ssr_of_row[i] = ssr_of_sr[sr_of_row[i]];
        if ((st = rcm_of(n, rp, ci, ssr_of_row, nssr, ssr_order)) != PSL_OK)
            goto out;
        int32_t *first = new_ptr + nsr + 1; /* the new ssr_ptr */
        first[0] = 0;
        for (int32_t q = 0; q < nssr; q++) {
            const int32_t t = ssr_order[q];
            first[q + 1] = first[q] + (ssr_ptr[t + 1] - ssr_ptr[t]);
            ssr_pos[t] = q;
            next[q] = first[q];
        }
        /* the super-row RCM runs the way of the super-super-rows' (an
         * order and its reverse are both RCM orders) */
        const bool flip = runs_against(sr_order, nsr, ssr_of_sr, ssr_pos);
        for (int32_t q = 0; q < nsr; q++) {
            const int32_t s = sr_order[flip ? nsr - 1 - q : q];
            new_order[next[ssr_pos[ssr_of_sr[s]]]++] = s;
        }
        final_order = new_order;
    }
    /* uncoarsen: each super-row's rows contiguous */
    st = place_rows(rp, ci, sr_ptr, sr_of_row, nsr, final_order, perm, new_ptr);
    if (st == PSL_OK)
        memcpy(p, new_ptr, (size_t)psl_csrk_ptr_count(k, nsr, nssr) * sizeof *p);
out:
    free(sr_of_row);
    free(ssr_of_row);
    free(ssr_of_sr);
    free(sr_order);
    free(ssr_order);
    free(ssr_pos);
    free(next);
    free(new_order);
    free(new_ptr);
    return st;
}

psl_status psl_csrk_reorder_perm(psl_csrk_reorder how, int32_t n, const int64_t *row_ptr,
                                 const int32_t *col_idx, int32_t k, int32_t sr, int32_t ssr,
                                 int32_t *perm, int32_t **ptr, int32_t *nsr, int32_t *nssr,
                                 int32_t *k_out)
{
    *ptr = NULL;
    *nsr = *nssr = *k_out = 0;
    if (how == PSL_CSRK_REORDER_BANDK && k >= 2) {
        int32_t *p = NULL, ns = 0, nss = 0, kk = k;
        PSL_TRY(psl_csrk_pointers(n, row_ptr, k, sr, ssr, &p, &ns, &nss, &kk));
        if (kk >= 2) {
            psl_status st = bandk(n, row_ptr, col_idx, kk, ns, nss, p, perm);
            if (st != PSL_OK) {
                free(p);
                return st;
            }
            *ptr = p;
            *nsr = ns;
            *nssr = nss;
            *k_out = kk;
            return PSL_OK;
        }
        free(p); /* one level: band-k is RCM */
    }
    return rcm_of(n, row_ptr, col_idx, NULL, n, perm);
}

const char *psl_csrk_reorder_name(psl_csrk_reorder how)
{
    switch (how) {
    case PSL_CSRK_REORDER_NONE: return "none";
    case PSL_CSRK_REORDER_RCM: return "rcm";
    case PSL_CSRK_REORDER_BANDK: return "bandk";
    }
    return "?";
}
