/* pp info: what this library contains and what the machine offers. */
#ifndef PP_INFO_H
#define PP_INFO_H

/* "parprim X.Y.Z (pp built against A.B.C)": the library's version and the
 * header's (pp --version, pp info, pp bench). */
void print_version(void);

/* pp info [--help]; argv holds the arguments after "info". */
int cmd_info(int argc, char **argv);

#endif
