# shellcheck shell=bash
# Sourced by bin/mmx and bin/topo. class_archive JAR ARCHIVE TRAINING-ARGS...: sets CDS_OPTS to the
# JVM options that start from ARCHIVE, a class data sharing archive of the classes JAR's command
# loads when run with TRAINING-ARGS; builds the archive first when it is missing or older than the
# jar (one writer at a time; concurrent launches wait for it, or go on without). Mapping archived
# classes instead of loading and verifying them again cuts JVM start-up by about 40%. JVM log lines
# go to stderr, so a stale or damaged archive (refused, then ignored) never prints on stdout.
# MMX_CDS=0 turns it off (CDS_OPTS empty).
# shellcheck disable=SC2034  # CDS_OPTS is read by the launcher that sources this
class_archive() {
  local jar="$1" archive="$2"
  shift 2
  CDS_OPTS=()
  [ "${MMX_CDS:-1}" != 0 ] || return 0
  # A training run that failed for this jar is not repeated on every launch (ARCHIVE.failed).
  if { [ ! -f "$archive" ] || [ "$jar" -nt "$archive" ]; } && { [ ! -f "$archive.failed" ] || [ "$jar" -nt "$archive.failed" ]; }; then
    # A jar in a directory this user cannot write to: no archive, and no complaint either.
    { (
      flock -w 120 9 || exit 0
      if { [ ! -f "$archive" ] || [ "$jar" -nt "$archive" ]; } && { [ ! -f "$archive.failed" ] || [ "$jar" -nt "$archive.failed" ]; }; then
        tmp="$archive.$$"
        if java -XX:ArchiveClassesAtExit="$tmp" -Xlog:disable -Xlog:all=error:stderr \
             --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar "$jar" "$@" >/dev/null 2>&1 &&
           [ -s "$tmp" ]; then
          mv -f "$tmp" "$archive"
          rm -f "$archive.failed"
        else
          rm -f "$tmp"
          echo "the class archive $archive could not be made (training run: $*); starting without it" >"$archive.failed"
        fi
      fi
    ) 9>"$archive.lock"; } 2>/dev/null || true
  fi
  [ -f "$archive" ] && [ ! "$jar" -nt "$archive" ] && CDS_OPTS=(-XX:SharedArchiveFile="$archive" -Xlog:disable -Xlog:all=warning:stderr)
  return 0
}
