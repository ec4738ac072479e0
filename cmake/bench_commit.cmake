# Run at build time (cmake -P): write OUT, a header defining TSB_GIT_COMMIT as
# the commit being built (TESSERA_COMMIT from the environment, else git's
# short HEAD, with "-dirty" when tracked files differ from it), rewriting it
# only when it changes so that an unchanged commit rebuilds nothing.
set(commit "$ENV{TESSERA_COMMIT}")
if(NOT commit AND GIT)
  execute_process(COMMAND ${GIT} rev-parse --short HEAD WORKING_DIRECTORY ${SOURCE} OUTPUT_VARIABLE commit
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(commit)
    execute_process(COMMAND ${GIT} status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE}
                    OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(changes)
      set(commit "${commit}-dirty")
    endif()
  endif()
endif()
if(NOT commit)
  set(commit "unknown")
endif()
set(text "#define TSB_GIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
