// Package tokens counts the tokens a chat-completions request costs, the way
// OpenAI's tokenizers (tiktoken) do, without ever touching the network.
//
// Guarantees:
//   - Counts are tiktoken-go's (github.com/pkoukk/tiktoken-go), its rank
//     files read from the copies github.com/pkoukk/tiktoken-go-loader
//     embeds in the binary (tiktoken-go's BpeLoader hook, set in init):
//     no download is ever attempted.
//   - An encoding is opened lazily, on the first exact count that needs it,
//     and at most once per process; every Counter shares it. Opening it
//     builds tiktoken-go's encoder over an empty rank map; a text is cut
//     into its pieces once, by tiktoken-go's own pattern, and each piece
//     not counted before has its tokens' ranks added (looked up in the
//     embedded rank file, which the first count reads and indexes in one
//     pass) and is counted by tiktoken-go alone; its count is kept. So a
//     process that counts a message or two pays a few ms, where
//     tiktoken.GetEncoding costs ~100 ms of CPU and ~22 MiB (see
//     encoder).
//   - Callers count only what a decision needs, once per text, and keep
//     the count: the context manager stores it with the record and in the
//     CacheStore, and sizes everything else with MessageUpperBound or
//     Estimate.
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
