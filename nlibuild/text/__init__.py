"""Text rules for a language: the words of a text (jieba for Chinese), negators, cleaning,
scripts, language identification and length units. Pure: nothing here opens the store, so
the queries and the store may use these rules."""
