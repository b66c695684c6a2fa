# SPDX-License-Identifier: MIT
# libreport/rules.mk — libfioreport: every .c under libreport's stage folders (base/ read/ bound/ judge/
# monitor/, see README.md) goes into build/libfioreport.{so,a}, its object under build/libreport/STAGE/. The version
# is the header's (FIOR_VERSION_*): the SONAME is libfioreport.so.MAJOR; the .so exports only what the
# version script fioreport.map lists.
FIOR_HEADER  := libreport/include/fioreport.h
# the public headers (installed) and the CLI's own one (fioreport_cli.h: not installed, nothing exported)
FIOR_PUBLIC_HDRS := libreport/include/fioreport.h libreport/include/fioreport_monitor.h libreport/fioreport_cli.h
FIOR_VERSION := $(shell sed -n 's/^\#define FIOR_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' $(FIOR_HEADER) | paste -sd.)
FIOR_SOVER   := $(firstword $(subst ., ,$(FIOR_VERSION)))
FIOR_MAP     := libreport/fioreport.map
FIOR_STAGES  := base read bound judge monitor
FIOR_SRCS    := $(foreach s,$(FIOR_STAGES),$(wildcard libreport/$(s)/*.c libreport/$(s)/*/*.c))
FIOR_HDRS    := $(foreach s,$(FIOR_STAGES),$(wildcard libreport/$(s)/*.h libreport/$(s)/*/*.h))
FIOR_OBJS    := $(patsubst libreport/%.c,$(BUILD)/libreport/%.o,$(FIOR_SRCS))
# the readers' private facts end fior_job in every build of the library (base/job_private.h)
FIOR_PRIVATE := -include libreport/base/job_private.h
FIOR_CFLAGS  := $(CFLAGS_BASE) $(FIOR_PRIVATE) -Ilibreport/include -Ilibreport/base -Ilibreport $(YAJL_CFLAGS)
FIOR_SO      := $(BUILD)/libfioreport.so
FIOR_A       := $(BUILD)/libfioreport.a

$(BUILD)/libreport/%.o: libreport/%.c $(FIOR_HDRS) $(FIOR_PUBLIC_HDRS) $(FLAGS_STAMP) | need-build
	@mkdir -p $(dir $@)
	$(CC) $(FIOR_CFLAGS) -c $< -o $@

$(FIOR_SO).$(FIOR_SOVER): $(FIOR_OBJS) $(FIOR_MAP) $(FLAGS_STAMP)
	$(CC) -shared -Wl,-soname,libfioreport.so.$(FIOR_SOVER) -Wl,--version-script=$(FIOR_MAP) $(LDFLAGS_BASE) \
	  -o $@ $(FIOR_OBJS) $(YAJL_LIBS) -lm
$(FIOR_SO): $(FIOR_SO).$(FIOR_SOVER)
	ln -sf libfioreport.so.$(FIOR_SOVER) $@
$(FIOR_A): $(FIOR_OBJS)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(FIOR_SO) $(FIOR_A)
