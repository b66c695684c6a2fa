/* placeholder */
typedef int fior_placeholder_t;
