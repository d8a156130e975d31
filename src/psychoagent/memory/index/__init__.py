"""In-process indexes of one namespace, read by writes and recalls alike: vectors and filter columns, keyword
postings, conversation structure and times, the approximate dense index and the provenance graph."""
