// One writer for every file and stream hcp-plan writes: every write and the final close checked
// (a full disk, a closed pipe, /dev/full are errors naming the path), and a regular output file
// written under a temporary name in its directory and renamed over the target, so an interrupted
// run (SIGTERM, SIGINT, a full disk) never leaves a partial file behind.
#pragma once

#include <string>
#include <string_view>

#include "hcp/diagnostic.h"

namespace hcp {

/// Write all of `text` to descriptor `fd` (short writes and EINTR retried). The error, located at
/// `name`, carries the reason: "cannot write: No space left on device".
Status write_all(int fd, std::string_view text, const std::string& name);

/// Write `text` to `path`. A symbolic link is written through, as cp and tee do: its target is
/// written (a dangling link's target created), the link kept; a loop of links is an error. A new
/// or regular file is written to a temporary name beside it and renamed into place only once
/// written and closed without error (on SIGTERM or SIGINT while writing, the temporary file is
/// removed), with the permission bits of the file it replaces. An existing file the user may not
/// write, or that has no write bit for anyone (for root), is an error "is read-only" and left
/// untouched. Anything else that exists (a device such as /dev/null or /dev/full, a FIFO, a file
/// named by a /proc link such as /dev/stdout) is written in place; a FIFO waits up to
/// fifo_peer_wait() (special_file.h) for a reader, then is an error. Errors name `path`.
Status write_output_file(const std::string& path, std::string_view text);

/// Write `text` to standard output and check it; "<stdout>" in errors.
Status write_standard_output(std::string_view text);

}  // namespace hcp
