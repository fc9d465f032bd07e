/* suggest.c: "did you mean" (see suggest.h).
 *
 * Why a threshold of len/3: one edit in a short name ("f32" for "fp32",
 * "laod" for "load") is a typo; beyond a third of the letters the candidate
 * is usually another word, and a wrong guess is worse than none. */
#include "suggest.h"

#include <string.h>

enum { SUGGEST_MAX_LEN = 64 }; /* longer words are not compared */

int suggest_distance(const char *a, const char *b, int limit) {
    int n = (int)strlen(a), m = (int)strlen(b);
    if (n > SUGGEST_MAX_LEN || m > SUGGEST_MAX_LEN || (n > m ? n - m : m - n) > limit)
        return limit + 1;
    /* three rows of the dynamic programme: i-2, i-1, i */
    int rows[3][SUGGEST_MAX_LEN + 1];
    int *pp = rows[0], *p = rows[1], *c = rows[2];
    for (int j = 0; j <= m; j++)
        p[j] = j;
    for (int i = 1; i <= n; i++) {
        c[0] = i;
        int lo = c[0];
        for (int j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int d = p[j - 1] + cost;
            if (p[j] + 1 < d)
                d = p[j] + 1;
            if (c[j - 1] + 1 < d)
                d = c[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < d)
                d = pp[j - 2] + 1; /* two neighbours swapped */
            c[j] = d;
            if (d < lo)
                lo = d;
        }
        if (lo > limit)
            return limit + 1;
        int *t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[m] > limit ? limit + 1 : p[m];
}

static int threshold(const char *word) {
    int t = (int)strlen(word) / 3;
    return t < 1 ? 1 : t;
}

void suggest_init(Suggest *sg, const char *word) { *sg = (Suggest){.word = word ? word : ""}; }

void suggest_add(Suggest *sg, const char *cand) {
    if (!cand || !strcmp(cand, sg->word))
        return;
    int lim = threshold(sg->word);
    int d = suggest_distance(sg->word, cand, lim);
    if (d > lim || d >= (int)strlen(sg->word))
        return; /* "y" for "x" is a replacement, not a correction */
    if (!sg->best || d < sg->dist) {
        sg->best = cand;
        sg->dist = d;
        sg->tie = false;
    } else if (d == sg->dist && strcmp(cand, sg->best)) {
        sg->tie = true;
    }
}

const char *suggest_best(const Suggest *sg) { return sg->best && !sg->tie ? sg->best : NULL; }
