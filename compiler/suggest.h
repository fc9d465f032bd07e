/* suggest.h: "did you mean": the closest of a set of names to a misspelt one.
 *
 *   Suggest sg;
 *   suggest_init(&sg, "laod");
 *   suggest_add(&sg, "load"); suggest_add(&sg, "store"); ...
 *   suggest_best(&sg)  -> "load"
 *
 * Distance is Damerau-Levenshtein in its optimal-string-alignment form
 * (insertions, deletions, substitutions and swaps of two neighbours each cost
 * 1: "laod" is one edit from "load"). A name is suggested only when it is
 * within max(1, len/3) edits of the word, keeps one of its letters at least,
 * and no other candidate is as close:
 * a guess that could as well be another name helps no one. */
#ifndef TL_SUGGEST_H
#define TL_SUGGEST_H

#include <stdbool.h>

typedef struct Suggest {
    const char *word;
    const char *best; /* closest candidate so far, or NULL */
    int dist;         /* its distance */
    bool tie;         /* another, different candidate is as close */
} Suggest;

void suggest_init(Suggest *sg, const char *word);
/* Consider one candidate (NULL and the word itself are ignored). */
void suggest_add(Suggest *sg, const char *cand);
/* The unique closest candidate (see above), or NULL. */
const char *suggest_best(const Suggest *sg);
/* Edits from a to b, or limit + 1 if more than limit. */
int suggest_distance(const char *a, const char *b, int limit);

#endif
