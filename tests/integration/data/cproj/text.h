#ifndef TEXT_H
#define TEXT_H
int count_words(const char *s);
#endif
