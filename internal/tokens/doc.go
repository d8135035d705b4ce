// Package tokens counts the tokens a chat-completions request costs, the way
// OpenAI's tokenizers (tiktoken) do, without ever touching the network.
//
// Guarantees:
//   - Encodings come from the BPE files embedded in the binary
//     (tiktoken-go-loader's offline loader); no download is ever attempted.
//   - An encoding is loaded lazily, on the first exact count that needs it,
//     and at most once per process; every Counter shares it. Importing the
//     package or building a Counter loads nothing, so paths that never count
//     (--version, sessions, completion) never pay the ~200 ms and ~20 MB.
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
