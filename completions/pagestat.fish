# fish completion for pagestat(1)

# Column names and what they hold, as --help lists them: name, text, ...
function __fish_pagestat_column_table
    printf '%s\n' \
        path 'path as given, or as found below a directory' \
        type 'file, directory, blockdev or total' \
        size 'bytes of the inspected range of the file(s)' \
        pages 'pages in that range' \
        cached 'pages in the page cache' \
        percent 'cached pages as a share of pages' \
        dropped 'with --evict: pages dropped from the cache' \
        read 'with --warm or --warm-from: pages read into the cache' \
        dirty 'cached pages modified but not yet written back' \
        writeback 'pages being written back now' \
        evicted 'pages evicted that the kernel still remembers' \
        recently_evicted 'evicted pages that would still be cached in a larger cache' \
        files 'files counted in the row' \
        backing "on overlayfs: the layer's file that was inspected" \
        fstype "with --system: a file system's type" \
        note 'with --system: why a file system was not walked' \
        inode "a file's inode number" \
        file_size "a file's size in bytes, whatever the range" \
        mtime "a file's modification time, seconds since 1970" \
        mtime_nsec 'and its nanoseconds' \
        segments 'with -S: the cached share of each part of the range' \
        extents 'with -e: cached (or missing) byte extents, START-END' \
        delta 'with -i: change in cached pages since the previous sample'
end

# One column for -s/--sort: any but the two lists and delta.
function __fish_pagestat_sort_keys --description 'Complete pagestat sort keys'
    set -l columns (__fish_pagestat_column_table)
    for i in (seq 1 2 (count $columns))
        contains -- $columns[$i] segments extents delta
        and continue
        printf '%s\t%s\n' $columns[$i] $columns[(math $i + 1)]
    end
end

# Complete a comma-separated column list for -o/--output: the part after the
# last comma, keeping the columns before it and an optional leading '+'.
function __fish_pagestat_columns --description 'Complete pagestat column names'
    set -l columns (__fish_pagestat_column_table)

    # The list may be attached to the option (--output=LIST, -oLIST,
    # -aoLIST); fish puts that part back itself.
    set -l token (string replace -r -- '^(--output=|-[acHLPxlJbpnq]*o)' '' (commandline -ct))
    set -l done (string match -r -- '^\+?(?:[^,]*,)*' $token)
    set -l chosen (string lower -- (string split -n , -- (string trim -l -c + -- $done)))

    for i in (seq 1 2 (count $columns))
        contains -- $columns[$i] $chosen
        and continue
        printf '%s%s\t%s\n' $done $columns[$i] $columns[(math $i + 1)]
    end
end

# Choices that exclude each other are offered until one is made.  Options
# with a value keep no such condition: it would also hide their values.
set -l deref_seen '__fish_seen_argument -s P -s H -s L -l no-dereference -l dereference-args -l dereference'
set -l format_seen '__fish_seen_argument -s J -l json -l csv -l format'
set -l output_seen '__fish_seen_argument -s o -l output -l output-all'

# Rows
complete -c pagestat -s a -l all -d 'Also a row for every file inside directories'
complete -c pagestat -s d -l max-depth -x -d 'Also a row for every directory down to depth N'
complete -c pagestat -s c -l total -d 'Add a grand-total row (table and CSV)'
complete -c pagestat -s s -l sort -x -a '(__fish_pagestat_sort_keys)' -d 'Order rows by a column (numbers largest first)'
complete -c pagestat -l reverse -d 'Reverse the order of --sort or --top'
complete -c pagestat -l top -x -d 'Only the N first rows in sort order (by cached without --sort)'

# Walk
complete -c pagestat -s P -l no-dereference -n "not $deref_seen" -d 'Follow no symbolic link, not even one named as FILE'
complete -c pagestat -s H -l dereference-args -n "not $deref_seen" -d 'Follow symbolic links named as FILE, no others (default)'
complete -c pagestat -s L -l dereference -n "not $deref_seen" -d 'Follow every symbolic link'
complete -c pagestat -s x -l one-file-system -d 'Do not descend into other file systems'
complete -c pagestat -s l -l count-links -d 'Count a hard-linked file each time it is met'
complete -c pagestat -l exclude -x -d 'Skip files and directories whose name or path matches GLOB'
complete -c pagestat -l exclude-from -r -F -d 'Skip what matches any glob in FILE, one a line'
complete -c pagestat -l files0-from -r -F -d 'Inspect the NUL-separated names in FILE (- for stdin)'
complete -c pagestat -s j -l jobs -x -d 'Threads that open and measure files while one walks (auto, 1 to 256)' -a '
    auto\t"the processors, once a walk passes 2048 files (default)"
    1\t"the walking thread alone"'
complete -c pagestat -l pid -x -a '(__fish_complete_pids)' -d 'Inspect the files process PID maps or holds open'
complete -c pagestat -l method -x -d 'How to ask the kernel' -a '
    auto\t"cachestat, else mincore (default)"
    cachestat\t"cachestat(2) only"
    mincore\t"mincore(2) only"'

# Range
complete -c pagestat -l offset -x -d 'Inspect each file from byte SIZE on (64K, 1MiB, 10GB)'
complete -c pagestat -l length -x -d 'Inspect at most SIZE bytes (0: to the end)'
complete -c pagestat -s S -l segments -x -d 'Split each range into N parts (1 to 4096), show the cached share of each'
# The value of -e is optional, so getopt takes it only attached:
# --extents=missing, -emissing ("-e missing" makes missing a FILE).  Without
# -r fish offers a long option's value only after '='.  -e is marked -r so
# that fish does not offer "-ea" and the like (the "a" would be the value),
# and its values are offered only attached: the word after "-e" gets files.
set -l extents_values '
    cached\t"the cached extents (default)"
    missing\t"the extents not cached"'
complete -c pagestat -l extents -f -a $extents_values -d 'List cached byte extents (=missing: the missing ones)'
complete -c pagestat -s e -d 'List cached byte extents (-emissing: the missing ones)'
complete -c pagestat -s e -r -f -a $extents_values -d 'Which extents' \
    -n 'string match -qr -- \'^-[acHLPxlJbpnq]*e\' (commandline -ct)'

# Output
complete -c pagestat -l format -x -d 'Output format' -a '
    table\t"aligned columns for people (default)"
    csv\t"RFC 4180, exact integers"
    json\t"one JSON document"
    ndjson\t"one JSON object per line"
    prometheus\t"Prometheus text format 0.0.4"'
complete -c pagestat -s J -l json -n "not $format_seen" -d 'Same as --format=json'
complete -c pagestat -l csv -n "not $format_seen" -d 'Same as --format=csv'
complete -c pagestat -s o -l output -x -a '(__fish_pagestat_columns)' -d 'Columns to show, comma-separated (+LIST adds)'
complete -c pagestat -l output-all -n "not $output_seen" -d 'Show every column'
complete -c pagestat -s b -l bytes -d 'Exact bytes instead of 1.5G in the table'
complete -c pagestat -s p -l pages -d 'Page counts for the page columns in the table'
complete -c pagestat -s n -l noheadings -d 'No header line (table and CSV)'
complete -c pagestat -l output-file -r -F -d 'Write to FILE, replaced only once complete'
complete -c pagestat -s q -l quiet -d 'No per-file error messages'
complete -c pagestat -l progress -d 'Show the progress line on a terminal from the start'
complete -c pagestat -l no-progress -d 'Never show the progress line'
complete -c pagestat -l expect-cached -x -d 'Exit with status 4 when less than PERCENT of the pages are cached'

# Watch
complete -c pagestat -s i -l interval -x -d 'Inspect again every SECONDS until interrupted (0.5 allowed)'
complete -c pagestat -l count -x -d 'With -i: stop after N samples'

complete -c pagestat -l system -d "What fills the whole machine's page cache"

# Actions
complete -c pagestat -l evict -d "Drop the clean cached pages of each file's range"
complete -c pagestat -l warm -d "Read the missing pages of each file's range into the cache"
complete -c pagestat -l warm-from -r -F -d 'Read the extents a snapshot (pagestat -a -e) lists back into the cache'
complete -c pagestat -l rate -x -d 'With a warm: read at most SIZE bytes a second (50M, 200MB/s)'
complete -c pagestat -s h -l help -d 'Show help and exit'
complete -c pagestat -s V -l version -d 'Show version, method and capabilities, and exit'
