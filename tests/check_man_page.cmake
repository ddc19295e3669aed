# check_man_page.cmake -- the man page build/packsell.1 (cmake -DPAGE=... -P):
# it exists, has the sections of a man page, one section per command holding
# that command's usage line and options, and names the PSL_* variables.
if(NOT EXISTS "${PAGE}")
  message(FATAL_ERROR "man page ${PAGE} was not written")
endif()
file(READ "${PAGE}" page)
set(missing "")
foreach(want ".TH PACKSELL 1" ".SH NAME" ".SH SYNOPSIS" ".SH DESCRIPTION"
    ".SH \"EXIT STATUS\"" ".SH ENVIRONMENT" "\\fBPSL_KERNEL\\fR" "\\fBPSL_MEMORY_LIMIT\\fR"
    "\\fBPSL_MEMORY_CHECK\\fR" "\\-\\-help" "\\-\\-values")
  string(FIND "${page}" "${want}" at)
  if(at LESS 0)
    list(APPEND missing "${want}")
  endif()
endforeach()
foreach(cmd gen info convert spmv bench choose solve tune-csrk)
  string(TOUPPER "${cmd}" upper)
  string(REPLACE "-" "\\-" cmd_roff "${cmd}") # roff escapes the hyphen
  # the command's section, then its usage line inside it
  string(FIND "${page}" ".SH \"PACKSELL ${upper}\"\n.nf\nUsage: packsell ${cmd_roff} " at)
  if(at LESS 0)
    list(APPEND missing "section of ${cmd} with its usage")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "${PAGE} lacks: ${missing}")
endif()
message(STATUS "${PAGE}: every section and command present")
