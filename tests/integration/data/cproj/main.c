#include <stdio.h>
#include "stats.h"
#include "text.h"
int main(void)
{
    double v[] = {1, 2, 3, 4, 5, 6, 7, 8};
    printf("mean %.3f sd %.3f words %d\n", mean(v, 8), stddev(v, 8),
           count_words("the quick brown fox"));
    return 0;
}
