/* placeholder glue to validate the fio-source plumbing */
#include "fio.h"
#include "optgroup.h"
int etcdwal_placeholder(struct thread_data *td);
int etcdwal_placeholder(struct thread_data *td) { return td->o.iodepth > 0; }
