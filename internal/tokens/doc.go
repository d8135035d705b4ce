// Package tokens counts the tokens a chat-completions request costs, the way
// OpenAI's tokenizers (tiktoken) do, without ever touching the network.
//
// Guarantees:
//   - Encodings are rank tables embedded in the binary (bpedata/, written
//     by internal/bpegen from tiktoken-go-loader's files; see bpetable.go);
//     no download is ever attempted. The counts are tiktoken-go's: the same
//     pre-tokenizer pattern and regexp engine, the same byte-pair merge, and
//     the tests compare token for token with tiktoken-go, which stays the
//     reference. A table keeps each token's 46-bit hash key and rank, not
//     its bytes, so a lookup touches one or two 64-byte buckets and never
//     compares bytes: no two tokens share a key (bpegen checks), and a
//     string that is no token is taken for one with odds under 2^-42 per
//     lookup — a miscount by one token far rarer than a memory error.
//     For o200k, lines of simple text (ASCII, and Unicode's punctuation
//     and symbols) are cut into pieces by hand (asciisplit.go), about five
//     times faster; tests and two fuzz targets hold those pieces to the
//     pattern's.
//   - An encoding is opened lazily, on the first exact count that needs it,
//     and at most once per process; every Counter shares it. Opening reads
//     the table where it lies in the binary: it compiles the pattern and
//     allocates next to nothing (tiktoken-go's own loader cost ~200 ms of
//     CPU and ~47 MiB).
//   - Text is counted as ordinary text: special-token spellings such as
//     "<|endoftext|>" inside a file are counted as the characters they are,
//     never as special tokens, and never panic.
//   - MessageUpperBound and Estimate need no encoder and are O(bytes).
//   - A text of 16 KB or more is counted in parallel parts (up to
//     GOMAXPROCS), cut only where no pre-tokenizer piece can span the cut,
//     so the count is the one of the whole text.
//
// Chat accounting follows the OpenAI cookbook (How_to_count_tokens_with_tiktoken):
// 3 tokens per message, +1 per name, +3 to prime the reply, and tool
// definitions per its num_tokens_for_tools. The cookbook itself calls these
// estimates; a server's reported prompt_tokens is the truth to calibrate
// against (the context manager does that).
//
// A Counter is safe for concurrent use.
package tokens
